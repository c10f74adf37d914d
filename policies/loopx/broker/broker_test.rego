package loopx.broker_test

import data.loopx.broker

test_agent_calls_are_run if {
	broker.allow with input as {"command": "loopx round finish"}
	broker.allow with input as {"command": "loopx hook"}
	broker.allow with input as {"command": "loopx mcp"}
	broker.allow with input as {"command": "loopx gate raise"}
}

test_what_runs_programs_or_writes_protected_files_is_refused if {
	not broker.allow with input as {"command": "loopx run"}
	not broker.allow with input as {"command": "loopx watch"}
	not broker.allow with input as {"command": "loopx demo"}
	not broker.allow with input as {"command": "loopx init"}
	not broker.allow with input as {"command": "loopx hooks install"}
	not broker.allow with input as {"command": "loopx hooks"}
}

test_another_project_is_refused if {
	not broker.allow with input as {"command": "loopx status", "project": true}
}

test_unknown_command_is_refused if {
	not broker.allow with input as {"command": "loopx serve"}
	not broker.allow with input as {}
}
