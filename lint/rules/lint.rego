# METADATA
# title: loopx.lint
# description: |
#   The entry of `loopx check`'s lint rules. input is {"spec": the exported
#   spec, "state": a read-only snapshot of the kernel, "now": RFC 3339,
#   "presets": the embedded preset names}; report is every rule's violations.
package loopx.lint

# METADATA
# description: Every violation of every rule under data.loopx.lint.rules.
# entrypoint: true
report contains v if {
	some rule in data.loopx.lint.rules
	some v in rule.violations
}
