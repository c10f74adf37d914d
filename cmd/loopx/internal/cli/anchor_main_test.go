package cli

import (
	"os"
	"testing"

	"github.com/loopx-dev/loopx/internal/anchor/anchortest"
)

// TestMain gives the tests their own XDG_STATE_HOME: the anchor
// directories of the projects they create stay out of the user's.
func TestMain(m *testing.M) { os.Exit(anchortest.Main(m)) }
