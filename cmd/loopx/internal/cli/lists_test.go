package cli

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every comma-separated list flag refuses a line break and is still a
// pflag.SliceValue (the confinement reads a path list entry by entry).
func TestListFlagsRefuseLineBreaks(t *testing.T) {
	n := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() != "stringSlice" {
				return
			}
			n++
			sv, ok := f.Value.(pflag.SliceValue)
			if !ok {
				t.Errorf("%s --%s: not a pflag.SliceValue", c.CommandPath(), f.Name)
				return
			}
			if err := f.Value.Set("a\nb"); err == nil {
				t.Errorf("%s --%s: a line break was taken", c.CommandPath(), f.Name)
			}
			if err := sv.Append("c\rd"); err == nil {
				t.Errorf("%s --%s: Append took a line break", c.CommandPath(), f.Name)
			}
			if err := f.Value.Set("x,y"); err != nil || !slices.Equal(sv.GetSlice(), []string{"x", "y"}) {
				t.Errorf("%s --%s: Set(\"x,y\") = %v, slice %q", c.CommandPath(), f.Name, err, sv.GetSlice())
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk((&app{}).rootCmd())
	if n == 0 {
		t.Fatal("no list flag found")
	}
}
