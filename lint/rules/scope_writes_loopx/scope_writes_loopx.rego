# METADATA
# title: scope-writes-loopx
# description: |
#   A goal's scope.write must not let agents write loopx's own files: a
#   write glob that matches loopx/ (the spec and policies) or .loopx/ (the
#   state) needs a scope.deny glob that excludes them ("loopx/**",
#   ".loopx/**"). The permission policy refuses those paths anyway; the
#   spec should say what it means.
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#scope-writes-loopx
# custom:
#   severity: error
package loopx.lint.rules.scope_writes_loopx

import data.loopx.lib as policies
import data.loopx.lint.lib

# probes are files in loopx's own directories that a write glob must not reach.
probes := {
	"loopx": ["loopx/loopx.cue", "loopx/policies/policy.rego"],
	".loopx": [".loopx/state.db", ".loopx/decisions.jsonl"],
}

# METADATA
# description: One violation per goal and loopx directory a write glob exposes.
violations contains lib.violation(rego.metadata.chain(), msg, $"goals.{gid}.scope.write", lib.spec_at(["goals", gid, "scope", "write"])) if {
	some gid, goal in lib.goals
	scope := lib.obj(object.get(lib.obj(goal), "scope", {}))
	writes := lib.strs(object.get(scope, "write", []))
	denies := lib.strs(object.get(scope, "deny", []))
	some dir, files in probes
	exposed := [[g, f] |
		some f in files
		some g in writes
		policies.glob_match(g, f)
		not denied(denies, f)
	]
	count(exposed) > 0
	msg := $"scope.write pattern {json.marshal(exposed[0][0])} of goal {gid} lets agents write {exposed[0][1]}: add \"{dir}/**\" to scope.deny ({dir}/ is loopx's own; the permission policy refuses it anyway)"
}

denied(denies, f) if {
	some d in denies
	policies.glob_match(d, f)
}
