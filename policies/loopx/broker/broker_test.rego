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
	broker.decision("loopx round finish", false, {}) == {"allow": true}
	broker.decision("loopx run", false, {}) == {"allow": false, "message": "loopx run cannot run from inside the agent's confinement (it would run programs or write files outside it); a human runs it outside"}
	broker.decision("loopx status", true, {}) == {"allow": false, "message": "loopx status --project: a confined agent's loopx calls act on its own project only"}
}

test_project_flag_refuses_even_a_listed_command if {
	broker.decision("loopx round finish", true, {}).allow == false
	broker.decision("loopx serve", true, {}).allow == false
}

test_path_flags_name_files_in_the_work_tree_only if {
	in_tree := {"scan": [{"value": "docs/", "outside": false}], "": [{"value": "README.md", "outside": false}]}
	broker.decision("loopx check", false, in_tree) == {"allow": true}
	anchor := {"": [{"value": "../state/loopx/projects/p-1/anchor.json", "outside": true}]}
	broker.decision("loopx check", false, anchor) == {"allow": false, "message": "loopx check: ../state/loopx/projects/p-1/anchor.json lies outside the work tree or in what the sandbox hides: a confined agent's loopx calls name files it can see in its own work tree only"}
	broker.decision("loopx policy eval", false, {"input": [{"value": "src/link.json", "outside": true}]}).allow == false
	broker.decision("loopx policy eval", false, {"input": [{"value": "-", "outside": false}]}).allow == true
}

test_flags_that_name_no_file_are_not_paths if {
	broker.decision("loopx todo add", false, {"goal": [{"value": "/etc", "outside": true}]}) == {"allow": true}
}
