package specs

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// durationFields walks #Spec and returns the generic paths ("*" for a map
// entry) of every field that takes a duration: it accepts "1w2d" and "500ms"
// and refuses "1x", which only the #Duration pattern does.
func durationFields(t *testing.T) []string {
	t.Helper()
	ctx := cuecontext.New()
	root := ctx.CompileBytes(schemaSource, cue.Filename(schemaFile))
	if err := root.Err(); err != nil {
		t.Fatal(err)
	}
	accepts := func(v cue.Value, s string) bool {
		return v.Unify(ctx.Encode(s)).Validate(cue.Concrete(true)) == nil
	}
	var out []string
	var walk func(v cue.Value, path []string)
	walk = func(v cue.Value, path []string) {
		if v.IncompleteKind() == cue.StructKind {
			it, err := v.Fields(cue.Optional(true))
			if err != nil {
				t.Fatal(err)
			}
			for it.Next() {
				walk(it.Value(), append(path[:len(path):len(path)], it.Selector().Unquoted()))
			}
			if p := v.LookupPath(cue.MakePath(cue.AnyString)); p.Exists() {
				walk(p, append(path[:len(path):len(path)], "*"))
			}
			return
		}
		if accepts(v, "1w2d") && accepts(v, "500ms") && !accepts(v, "1x") {
			out = append(out, strings.Join(path, "."))
		}
	}
	walk(root.LookupPath(cue.MakePath(cue.Def("#Spec"))), nil)
	slices.Sort(out)
	return out
}

// Every duration field of the spec uses the schema's #Duration, and a
// malformed duration in any of them is reported at its value, file:line:col.
func TestSchema_EveryDurationFieldIsADuration(t *testing.T) {
	cases := map[string]string{
		"project.policy_deadline":       `project: policy_deadline: BAD`,
		"audit.retain":                  `audit: retain: BAD`,
		"goals.*.quota.window":          `goals: g1: {objective: "x", quota: window: BAD}`,
		"goals.*.quota.min_interval":    `goals: g1: {objective: "x", quota: min_interval: BAD}`,
		"goals.*.gates.*.expires_after": `goals: g1: {objective: "x", gates: m: {question: "Merge the v2 branch now?", expires_after: BAD}}`,
		"goals.*.evidence.stale_after":  `goals: g1: {objective: "x", evidence: stale_after: BAD}`,
		"goals.*.todos.*.every":         `goals: g1: {objective: "x", todos: t: {title: "x", kind: "monitor", every: BAD}}`,
	}
	found := durationFields(t)
	var want []string
	for p := range cases {
		want = append(want, p)
	}
	slices.Sort(want)
	if !slices.Equal(found, want) {
		t.Fatalf("the schema's duration fields are %v; this test covers %v: add the new field here (and to helpByField)", found, want)
	}
	for path, tmpl := range cases {
		if fieldHelp(strings.Split(strings.ReplaceAll(path, "*", "x"), ".")) != durationHelp {
			t.Errorf("%s: help is not durationHelp", path)
		}
		for _, bad := range []string{`"24 hours"`, `"1d 2h"`, `"-5m"`, `"5"`, `"1.5.2h"`} {
			src := strings.Replace(tmpl, "BAD", bad, 1) + "\n"
			_, err := Load(writeSpec(t, map[string]string{"loopx.cue": src}))
			var es Errors
			if !errors.As(err, &es) {
				t.Errorf("%s = %s: loaded (%v)", path, bad, err)
				continue
			}
			col := strings.Index(src, bad) + 1
			ok := false
			for _, e := range es {
				if e.Location.File == "loopx/loopx.cue" && e.Location.Line == 1 && e.Location.Col == col && e.Code == CodeInvalid &&
					strings.Contains(e.Message, bad) && strings.Contains(e.Message, ": want "+durationHelp) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s = %s: want loopx/loopx.cue:1:%d: … %s: want a duration …; got:\n%v", path, bad, col, bad, es)
			}
		}
	}
}
