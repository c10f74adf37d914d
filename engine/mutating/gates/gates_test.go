package gates

import (
	"slices"
	"testing"
	"time"

	"github.com/loopx-dev/loopx/internal/errs"
)

// TestValidate: each malformed request is a usage error with its code; a
// good one gets the default options and answerers.
func TestValidate(t *testing.T) {
	const q = "Merge the v2 branch into main now?"
	for _, c := range []struct {
		name string
		in   Input
		code string
	}{
		{"good", Input{Question: q}, ""},
		{"empty question", Input{Question: "  "}, "empty_question"},
		{"control character", Input{Question: "Merge the v2 \x1b[2J branch now?"}, "control_character"},
		{"vague question", Input{Question: "ok?"}, "vague_question"},
		{"duplicate options", Input{Question: q, Options: []string{"yes", "yes"}}, "bad_options"},
		{"negative expiry", Input{Question: q, ExpiresAfter: -time.Second}, "bad_expiry"},
		{"on_expiry without expiry", Input{Question: q, OnExpiry: "reject"}, "bad_on_expiry"},
		{"on_expiry not an option", Input{Question: q, ExpiresAfter: time.Hour, OnExpiry: "maybe"}, "bad_on_expiry"},
		{"two scopes", Input{Question: q, BlocksTodo: "t-1", BlocksAgent: "a1"}, "bad_scope"},
	} {
		in := c.in
		err := in.Validate()
		if got := errs.CodeOf(err); (err == nil) != (c.code == "") || (err != nil && got != c.code) {
			t.Errorf("%s: %v, want code %q", c.name, err, c.code)
		}
		if err != nil && errs.KindOf(err) != errs.Usage {
			t.Errorf("%s: kind %v, want Usage", c.name, errs.KindOf(err))
		}
		if err == nil && (!slices.Equal(in.Options, []string{"approve", "reject"}) || !slices.Equal(in.Answerers, []string{"human"})) {
			t.Errorf("%s: defaults %v %v", c.name, in.Options, in.Answerers)
		}
	}
}
