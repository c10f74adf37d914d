package anchorname

import "testing"

func TestFor(t *testing.T) {
	for _, c := range []struct{ real, want string }{
		{"/home/me/my proj", "my_proj-"},
		{"/srv/api.v2", "api.v2-"},
		{"/", "_-"},
		{"/tmp/ünïcode", "_n_code-"},
	} {
		got := For(c.real)
		if len(got) != len(c.want)+16 || got[:len(c.want)] != c.want {
			t.Errorf("For(%q) = %q, want %q + 16 hex digits", c.real, got, c.want)
		}
	}
	if For("/a/p") == For("/b/p") {
		t.Error("two roots with one base name share an anchor")
	}
}
