package serveclient_test

import (
	"bytes"
	"errors"
	"io"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func errorsIs(err, target error) bool { return errors.Is(err, target) }
