package rulebook

import "testing"

func TestReads(t *testing.T) {
	mod := func(body string) []Module {
		return []Module{{Path: "loopx/policies/p.rego", Source: "package loopx.user.permission\n\n" + body + "\n"}}
	}
	cases := []struct {
		name string
		user []Module
		want bool
	}{
		{"none", nil, false},
		{"todos", mod(`deny contains "busy" if count(input.state.todos) > 3`), true},
		{"a todo's field", mod(`deny contains t.title if { some t in input.state.todos; t.kind == "task" }`), true},
		{"bracketed", mod(`deny contains "x" if count(input["state"]["todos"]) > 0`), true},
		{"state whole", mod(`deny contains "x" if { s := input.state; count(s.todos) > 0 }`), true},
		{"input whole", mod(`deny contains "x" if { walk(input, [p, v]); v == "t-1" }`), true},
		{"state by variable", mod(`deny contains k if { some k; input.state[k]; k != "gates" }`), true},
		{"imported", []Module{{Path: "loopx/policies/p.rego", Source: "package loopx.user.permission\n\nimport input.state.todos\n\ndeny contains \"x\" if count(todos) > 0\n"}}, true},
		{"another package", []Module{{Path: "loopx/policies/h.rego", Source: "package loopx.user.should_run\n\nbusy if count(input.state.todos) > 3\n"}}, true},
		{"does not parse", mod(`deny contains "x" if {`), true},
		{"gates only", mod(`deny contains "gated" if count(input.state.gates) > 0`), false},
		{"the request only", mod(`deny contains "rm" if input.permission.tool == "Bash"`), false},
		{"agent and goal", mod(`deny contains "x" if { input.state.agent.role == "reviewer"; input.state.goal.status == "paused" }`), false},
		{"a test only", []Module{{Path: "loopx/policies/p_test.rego", Test: true, Source: "package loopx.user.permission_test\n\ntest_x if count(input.state.todos) == 0\n"}}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Reads(tc.user, "state", "todos"); got != tc.want {
				t.Errorf("Reads = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestReadsTodos: a user policy reads the todos through the input, or
// through the built-in should_run rules that read them (data.loopx.run:
// its todos, candidates, counts), named, imported or walked; the library's
// functions, given a policy's own arguments, and other rules do not.
func TestReadsTodos(t *testing.T) {
	mod := func(body string) []Module {
		return []Module{{Path: "loopx/policies/p.rego", Source: "package loopx.user.should_run\n\n" + body + "\n"}}
	}
	cases := []struct {
		name string
		user []Module
		want bool
	}{
		{"none", nil, false},
		{"the input's todos", mod(`deny contains "busy" if count(input.state.todos) > 3`), true},
		{"the run rules' todos", mod(`deny contains "busy" if count(data.loopx.run.todos) > 3`), true},
		{"a run rule", mod(`deny contains "x" if data.loopx.run.selected.priority > 2`), true},
		{"imported run", mod("import data.loopx.run\n\ndeny contains \"x\" if count(run.candidates) > 9"), true},
		{"loopx by variable", mod(`deny contains k if { some k; data.loopx[k]; k != "spec" }`), true},
		{"data whole", mod(`deny contains "x" if { walk(data, [p, v]); v == "t-1" }`), true},
		{"the spec only", mod(`deny contains "x" if data.loopx.spec.goals[input.goal].quota.rounds > 9`), false},
		{"a library function", mod(`deny contains "x" if data.loopx.lib.counted(2, "todo") == "2 todos"`), false},
		{"gates only", mod(`deny contains "gated" if count(input.state.gates) > 0`), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReadsTodos(tc.user); got != tc.want {
				t.Errorf("ReadsTodos = %v, want %v", got, tc.want)
			}
			var c ReadsCache
			if c.Todos(tc.user) != tc.want || c.Todos(tc.user) != tc.want {
				t.Errorf("ReadsCache.Todos differs from ReadsTodos")
			}
		})
	}
}
