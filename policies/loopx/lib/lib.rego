# METADATA
# title: loopx.lib
# description: Helpers shared by the loopx decisions (reasons, instants, wording).
package loopx.lib

# reason is one entry of a decision's reasons (engine.Reason).
reason(code, message, rule, ref) := {"code": code, "message": message, "rule": rule, "ref": ref}

# duration_text is a whole number of seconds as Go writes a duration:
# 30 is "30s", 900 "15m0s", 5400 "1h30m0s"; not a number: "0s".
duration_text(s) := sprintf("%dh%dm%ds", [floor(s / 3600), floor((s % 3600) / 60), s % 60]) if {
	is_number(s)
	s >= 3600
} else := sprintf("%dm%ds", [floor(s / 60), s % 60]) if {
	is_number(s)
	s >= 60
} else := sprintf("%ds", [s]) if {
	is_number(s)
} else := "0s"

# earliest is the earliest RFC 3339 instant among ts, or null when none is one.
earliest(ts) := min(pairs)[1] if {
	pairs := [[time.parse_rfc3339_ns(s), s] | some s in ts; is_string(s); regex.match(rfc3339, s)]
	count(pairs) > 0
} else := null

rfc3339 := `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`

# nonempty is s when it is a non-empty string, else null (for next_check_at).
nonempty(s) := s if {
	is_string(s)
	s != ""
} else := null

# counted is "1 todo" / "3 todos".
counted(n, word) := $"{n} {word}" if n == 1

else := $"{n} {word}s"

# reason_data is a reason that carries facts for scripts (engine.Reason.Data:
# the holder of a lease, the open dependencies, …).
reason_data(code, message, rule, ref, facts) := object.union(reason(code, message, rule, ref), {"data": facts})

# user_reason turns an entry of a user policy's deny or warn set into a
# reason: a string, or an object {code, message, ref}; rule names the set.
user_reason(e, code, rule) := reason(object.get(e, "code", code), object.get(e, "message", $"{e}"), rule, object.get(e, "ref", "")) if is_object(e)

else := reason(code, e, rule, "") if is_string(e)

else := reason(code, $"{e}", rule, "")
