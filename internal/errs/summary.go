package errs

import (
	"errors"
	"fmt"
)

// Summary is err in one line: a List's first error and how many more
// ("… (and 2 more)"), any other error's text.
func Summary(err error) string {
	var l List
	if errors.As(err, &l) && len(l) > 0 {
		if len(l) == 1 {
			return l[0].Error()
		}
		return fmt.Sprintf("%s (and %d more)", l[0].Error(), len(l)-1)
	}
	return err.Error()
}
