package engine

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzReadCommandLine: the reader never panics and classifies every line:
// either it is opaque (with a reason; always so when it does not parse), or
// it is read, and a read line with no simple command has none to read.
// Seeds: testdata/fuzz/FuzzReadCommandLine and every form of shellForms.
func FuzzReadCommandLine(f *testing.F) {
	for _, form := range shellForms {
		if len(form.line) < 4096 {
			f.Add(form.line)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		cl := readCommandLine(line)
		if !cl.parsed && len(cl.opaque) == 0 {
			t.Fatalf("%q: unparsed without an opaque reason", line)
		}
		for _, reason := range cl.opaque {
			if strings.TrimSpace(reason) == "" {
				t.Fatalf("%q: empty opaque reason in %q", line, cl.opaque)
			}
		}
		if len(cl.argvs) != len(cl.commands) {
			t.Fatalf("%q: %d argvs, %d commands", line, len(cl.argvs), len(cl.commands))
		}
		for i, argv := range cl.argvs {
			if len(argv) == 0 || strings.Join(argv, " ") != cl.commands[i] {
				t.Fatalf("%q: argv %q vs command %q", line, argv, cl.commands[i])
			}
		}
		for _, w := range cl.writes {
			if w == "" {
				t.Fatalf("%q: an empty write in %q", line, cl.writes)
			}
		}
		if len(cl.opaque) > 0 || len(cl.argvs) > 0 {
			return
		}
		// Read with nothing to run: the syntax tree holds no command word.
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
		if err != nil {
			t.Fatalf("%q: read as fine but does not parse: %v", line, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				t.Fatalf("%q: a command (%s…) was not read", line, c.Args[0].Lit())
			}
			return true
		})
	})
}
