# METADATA
# title: loopx.lint.lib
# description: Helpers shared by the lint rules (violations, shapes, instants); path globs are the policies library, data.loopx.lib.glob_match.
package loopx.lint.lib

# violation is one finding of a lint rule (lint.Finding in Go). chain is
# the calling rule's rego.metadata.chain(): the rule id and severity are its
# package's METADATA (title; custom.severity), the one place they are
# written (lint.Rules refuses a rule package without them). location is spec_at(path) for a spec field or
# state_at for kernel records.
violation(chain, message, ref, location) := {
	"rule": meta.title, "severity": meta.custom.severity,
	"message": message, "ref": ref, "location": location,
} if {
	some link in chain
	meta := link.annotations
	meta.scope == "package"
}

# spec_at locates a finding at a spec field path (Go maps it to the user's
# file:line:col, or to the nearest declared parent field).
spec_at(path) := {"path": path}

# state_at locates a finding in the kernel store.
state_at := {"file": ".loopx/state.db"}

# obj is x when it is an object, else {}; arr and strs likewise for arrays.
obj(x) := x if is_object(x)

else := {}

arr(x) := x if is_array(x)

else := []

strs(x) := [s | some s in arr(x); is_string(s)]

# goals are the spec's goals, keyed by id ({} when there are none).
goals := obj(object.get(input, ["spec", "goals"], {}))

# agents are the spec's declared agents, keyed by id.
agents := obj(object.get(input, ["spec", "agents"], {}))

# state(k) is the snapshot's list k ("todos", "gates", "evidence", "agents", "goals").
state(k) := [x | some x in arr(object.get(input, ["state", k], [])); is_object(x)]

rfc3339 := `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`

# instant is s in nanoseconds since the epoch; undefined unless s is RFC 3339.
instant(s) := time.parse_rfc3339_ns(s) if {
	is_string(s)
	regex.match(rfc3339, s)
}

# now is input.now in nanoseconds (undefined without a valid input.now).
now := instant(input.now)

# duration renders whole seconds for people: "90s", "45m", "36h", "4d".
duration(s) := $"{s}s" if s < 120

else := $"{floor(s / 60)}m" if s < 7200

else := $"{floor(s / 3600)}h" if s < 172800

else := $"{floor(s / 86400)}d"
