package presets

import (
	"encoding/json"
	"fmt"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
)

// Setting is one goal field a preset sets.
type Setting struct {
	// Path is the goal field ("quota.rounds", "gates.publish.guards").
	Path string `json:"path"`
	// Value is the value the goal gets when it does not set the field: the
	// preset's default, or its fixed value.
	Value json.RawMessage `json:"value"`
	// Default is true when the goal's own value replaces the preset's
	// (a `*default | …` in the CUE); false when the value is fixed and a
	// goal that sets the field must agree with it.
	Default bool `json:"default"`
	// Constraint is the CUE expression a goal's own value must satisfy
	// when it is narrower than "anything" (`int & >=1 & <=2`); "" otherwise.
	Constraint string `json:"constraint,omitempty"`
}

// Settings evaluates preset name on its own and lists the fields it sets,
// in source order. Errors: an unknown preset; a preset that does not
// compile (a bug caught by the tests).
func Settings(name string) ([]Setting, error) {
	src, ok := Source(name)
	if !ok {
		return nil, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	v := cuecontext.New().CompileBytes(src, cue.Filename(name+".cue"))
	if err := v.Err(); err != nil {
		return nil, err
	}
	var out []Setting
	err := walk(v, nil, &out)
	return out, err
}

func walk(v cue.Value, path []string, out *[]Setting) error {
	if d, ok := v.Default(); !ok && v.IncompleteKind() == cue.StructKind {
		it, err := d.Fields()
		if err != nil {
			return err
		}
		for it.Next() {
			if err := walk(it.Value(), append(path, it.Selector().Unquoted()), out); err != nil {
				return err
			}
		}
		return nil
	}
	d, isDefault := v.Default()
	raw, err := d.MarshalJSON()
	if err != nil {
		return fmt.Errorf("%s: %w", strings.Join(path, "."), err)
	}
	s := Setting{Path: strings.Join(path, "."), Value: raw, Default: isDefault}
	if isDefault {
		// A value with a default evaluates to the default and what else is
		// allowed: `_` (anything) or a constraint worth showing.
		var alts []string
		_, args := v.Expr()
		for _, a := range args {
			if a.IncompleteKind() == cue.TopKind {
				alts = nil
				break
			}
			open := a.IncompleteKind() == cue.ListKind && a.Allows(cue.AnyIndex)
			b, err := format.Node(a.Syntax())
			if err != nil || !open && sameJSON(a, raw) || kindNames[string(b)] {
				continue
			}
			alts = append(alts, string(b))
		}
		s.Constraint = strings.Join(alts, " | ")
	}
	*out = append(*out, s)
	return nil
}

// kindNames are constraints that only repeat the value's kind.
var kindNames = map[string]bool{"string": true, "int": true, "number": true, "bool": true, "[...]": true}

func sameJSON(v cue.Value, raw []byte) bool {
	b, err := v.MarshalJSON()
	return err == nil && string(b) == string(raw)
}
