# METADATA
# title: min-interval-exceeds-window
# description: |
#   A goal's quota.min_interval must not be longer than its quota.window:
#   at most one round could start per window, so the round limit is
#   meaningless and the cadence is probably a typo ("10h" for "10m").
# related_resources:
#   - description: the rule's documentation
#     ref: docs/policies.md#min-interval-exceeds-window
# custom:
#   severity: error
package loopx.lint.rules.min_interval_exceeds_window

import data.loopx.lint.lib

# METADATA
# description: Goals whose min_interval is longer than their window.
violations contains lib.violation(rego.metadata.chain(), msg, $"goals.{gid}.quota.min_interval", lib.spec_at(["goals", gid, "quota", "min_interval"])) if {
	some gid, goal in lib.goals
	q := lib.obj(object.get(lib.obj(goal), "quota", {}))
	is_number(q.min_interval_seconds)
	is_number(q.window_seconds)
	q.min_interval_seconds > q.window_seconds
	mi := object.get(q, "min_interval", lib.duration(q.min_interval_seconds))
	w := object.get(q, "window", lib.duration(q.window_seconds))
	msg := $"goal {gid} has quota.min_interval {mi}, longer than its quota.window {w}: at most one round can start per window"
}
