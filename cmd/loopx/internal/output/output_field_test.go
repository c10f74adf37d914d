package output

import (
	"bytes"
	"testing"
)

func TestWithField(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"object keeps its order, field last", struct {
			B int    `json:"b"`
			A string `json:"a"`
		}{1, "<x>"}, `{"b":1,"a":"<x>","spec_error":"f.cue:1:2: bad"}`},
		{"empty object", map[string]int{}, `{"spec_error":"f.cue:1:2: bad"}`},
		{"a list keeps its shape", []int{1, 2}, `[1,2]`},
		{"null", nil, `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := WithField(tc.v, "spec_error", "f.cue:1:2: bad")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			var b bytes.Buffer
			if err := JSON(&b, got); err != nil {
				t.Fatalf("JSON of the result: %v", err)
			}
		})
	}
}
