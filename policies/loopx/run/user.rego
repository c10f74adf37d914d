package loopx.run

import data.loopx.lib

# METADATA
# description: Step 10, data.loopx.user.should_run.deny entries (any deny wins).
user_deny := [lib.user_reason(e, "user_policy", "data.loopx.user.should_run.deny") | some e in data.loopx.user.should_run.deny]

# METADATA
# description: data.loopx.user.should_run.warn entries, added to any verdict.
user_warn := [lib.user_reason(e, "user_warning", "data.loopx.user.should_run.warn") | some e in data.loopx.user.should_run.warn]
