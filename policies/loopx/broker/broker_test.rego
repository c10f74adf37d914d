package loopx.broker_test

import data.loopx.broker

test_agent_calls_are_run if {
	broker.allowed("loopx round finish", false)
	broker.allowed("loopx hook", false)
	broker.allowed("loopx mcp", false)
	broker.allowed("loopx gate raise", false)
}

test_what_runs_programs_or_writes_protected_files_is_refused if {
	not broker.allowed("loopx run", false)
	not broker.allowed("loopx watch", false)
	not broker.allowed("loopx demo", false)
	not broker.allowed("loopx init", false)
	not broker.allowed("loopx hooks install", false)
	not broker.allowed("loopx hooks", false)
}

test_another_project_is_refused if {
	not broker.allowed("loopx status", true)
}

test_unknown_command_is_refused if {
	not broker.allowed("loopx serve", false)
	not broker.allowed("", false)
}

test_decision_says_why if {
	broker.decision("loopx round finish", false) == {"allow": true}
	broker.decision("loopx run", false) == {"allow": false, "message": "loopx run cannot run from inside the agent's confinement (it would run programs or write files outside it); a human runs it outside"}
	broker.decision("loopx status", true) == {"allow": false, "message": "loopx status --project: a confined agent's loopx calls act on its own project only"}
}

test_project_flag_refuses_even_a_listed_command if {
	broker.decision("loopx round finish", true).allow == false
	broker.decision("loopx serve", true).allow == false
}
