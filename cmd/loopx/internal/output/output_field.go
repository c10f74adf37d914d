package output

import (
	"bytes"
	"encoding/json"
)

// WithField is v's JSON with key set to val, added as the last field when
// v encodes as a JSON object; any other v (a list, a scalar) is returned
// as it encodes, unchanged: a document's shape never changes. Errors: the
// encoding's.
func WithField(v any, key string, val any) (json.RawMessage, error) {
	doc, err := marshal(v)
	if err != nil {
		return nil, err
	}
	doc = bytes.TrimSpace(doc)
	if len(doc) < 2 || doc[0] != '{' {
		return doc, nil
	}
	k, err := marshal(key)
	if err != nil {
		return nil, err
	}
	x, err := marshal(val)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Write(doc[:len(doc)-1])
	if len(bytes.TrimSpace(doc[1:len(doc)-1])) > 0 {
		b.WriteByte(',')
	}
	b.Write(bytes.TrimSpace(k))
	b.WriteByte(':')
	b.Write(bytes.TrimSpace(x))
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshal is json.Marshal without HTML escaping, as JSON writes.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b.Bytes(), err
}
