# METADATA
# title: unknown-preset
# description: |
#   A goal's preset must name one of the embedded presets (input.presets,
#   `loopx preset list`).
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#unknown-preset
# custom:
#   severity: error
package loopx.lint.rules.unknown_preset

import data.loopx.lint.lib

known := {p | some p in lib.strs(object.get(input, "presets", []))}

# METADATA
# description: A goal names a preset loopx does not have.
violations contains lib.violation(rego.metadata.chain(), msg, $"goals.{gid}.preset", lib.spec_at(["goals", gid, "preset"])) if {
	some gid, goal in lib.goals
	p := object.get(lib.obj(goal), "preset", "")
	is_string(p)
	p != ""
	not p in known
	msg := $"goal {gid} names preset {json.marshal(p)}, which does not exist (known: {concat(", ", sort(known))})"
}
