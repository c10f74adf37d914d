package specs

import (
	"cuelang.org/go/cue/parser"
)

// Position is a place in a spec file: File relative to the project root
// ("loopx/loopx.cue"), Line and Col 1-based.
type Position struct {
	File string
	Line int
	Col  int
}

// Locator finds where the user's spec files declare a field (for findings
// about a spec field that `loopx check` reports with file:line:col).
type Locator struct {
	index posIndex
	first string
}

// NewLocator reads and parses the spec files in specDir (the files Load
// reads, without evaluating them). Files that do not parse are skipped.
// Errors: the Errors of a missing or unreadable spec directory.
func NewLocator(specDir string) (*Locator, error) {
	src, errs := readSpec(specDir)
	if errs != nil {
		return nil, errs
	}
	l := &Locator{index: posIndex{}, first: src.files[0].name}
	for _, f := range src.files {
		af, err := parser.ParseFile(f.name, f.data)
		if err != nil {
			continue
		}
		l.index.addFile(af)
	}
	return l, nil
}

// Find returns the position of the field path (["goals", "g1", "quota",
// "rounds"]; list elements by index, "0"), or of its nearest declared
// parent when a preset or a default supplies the field itself, and
// whether the field itself is declared. Without any declared prefix it
// returns the start of the first spec file.
func (l *Locator) Find(path []string) (Position, bool) {
	pos, n := l.index.nearest(path)
	if n == 0 || !pos.IsValid() {
		return Position{File: l.first, Line: 1, Col: 1}, false
	}
	p := Position{File: pos.Filename(), Line: pos.Line(), Col: pos.Column()}
	if p.Col < 1 {
		p.Col = 1
	}
	return p, n == len(path)
}
