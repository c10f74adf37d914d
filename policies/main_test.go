package policies

import (
	"os"
	"testing"

	"github.com/loopx-dev/loopx/internal/testpace"
)

func TestMain(m *testing.M) {
	testpace.Set()
	os.Exit(m.Run())
}
