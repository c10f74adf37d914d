package errs

import (
	"errors"
	"fmt"
	"testing"
)

func TestSummary(t *testing.T) {
	a, b := New(Input, "bad", "first"), New(Input, "bad", "second")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("plain"), "plain"},
		{List{a}, a.Error()},
		{List{a, b, b}, a.Error() + " (and 2 more)"},
		{fmt.Errorf("wrapped: %w", List{a, b}), a.Error() + " (and 1 more)"},
		{fmt.Errorf("empty: %w", List{}), "empty: " + List{}.Error()},
	} {
		if got := Summary(tc.err); got != tc.want {
			t.Errorf("Summary(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
