package audit

import (
	"errors"

	"github.com/loopx-dev/loopx/internal/errs"
	"github.com/loopx-dev/loopx/internal/nofollow"
	"github.com/loopx-dev/loopx/kernel"
)

// LinkRefused is the fs.link_refused event of a write loopx refused
// because it found a link where it writes (a *nofollow.LinkError in err):
// Subject the link's path, Message what was being written (what) and what
// was found, Data {path, target, hard}. ok is false for any other error.
func LinkRefused(what string, err error) (e kernel.Event, ok bool) {
	var le *nofollow.LinkError
	if !errors.As(err, &le) {
		return e, false
	}
	return kernel.Event{Kind: "fs.link_refused", Actor: "loopx", Subject: le.Path,
		Message: what + ": " + le.Error(),
		Data:    map[string]any{"path": le.Path, "target": le.Target, "hard": le.Hard}}, true
}

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
