package audit

import (
	"errors"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/nofollow"
)

// LinkRefusal is err as a refusal (errs.No, code link_refused, the
// LinkError's text) with the path of the link found, when err is a link
// found where loopx writes (nofollow.ErrLink); "" and nil for any other
// error. Engine.AuditRefusal records it as an fs.link_refused event.
func LinkRefusal(err error) (path string, refusal error) {
	var le *nofollow.LinkError
	if !errors.As(err, &le) {
		return "", nil
	}
	return le.Path, errs.New(errs.No, "link_refused", le.Error())
}
