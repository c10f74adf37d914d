package loopx.run

import data.loopx.lib

# METADATA
# description: Step 10, data.loopx.user.should_run.deny entries (any deny wins).
user_deny := [user_reason(e, "user_policy", "data.loopx.user.should_run.deny") | some e in data.loopx.user.should_run.deny]

# METADATA
# description: data.loopx.user.should_run.warn entries, added to any verdict.
user_warn := [user_reason(e, "user_warning", "data.loopx.user.should_run.warn") | some e in data.loopx.user.should_run.warn]

# user_reason accepts a string or an object {code, message, ref}.
user_reason(e, code, rule) := lib.reason(object.get(e, "code", code), object.get(e, "message", $"{e}"), rule, object.get(e, "ref", "")) if is_object(e)

else := lib.reason(code, e, rule, "") if is_string(e)

else := lib.reason(code, $"{e}", rule, "")
