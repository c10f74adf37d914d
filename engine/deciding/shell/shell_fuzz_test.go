package shell

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
		if len(form.Line) < 4096 {
			f.Add(form.Line)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		cl := Read(line)
		if !cl.Parsed && len(cl.Opaque) == 0 {
			t.Fatalf("%q: unparsed without an opaque reason", line)
		}
		for _, reason := range cl.Opaque {
			if strings.TrimSpace(reason) == "" {
				t.Fatalf("%q: empty opaque reason in %q", line, cl.Opaque)
			}
		}
		if len(cl.Argvs) != len(cl.Commands) {
			t.Fatalf("%q: %d argvs, %d commands", line, len(cl.Argvs), len(cl.Commands))
		}
		for i, argv := range cl.Argvs {
			if len(argv) == 0 || strings.Join(argv, " ") != cl.Commands[i] {
				t.Fatalf("%q: argv %q vs command %q", line, argv, cl.Commands[i])
			}
		}
		for _, w := range cl.Writes {
			if w == "" {
				t.Fatalf("%q: an empty write in %q", line, cl.Writes)
			}
		}
		if len(cl.Opaque) > 0 || len(cl.Argvs) > 0 {
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
