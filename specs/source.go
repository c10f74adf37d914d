package specs

import _ "embed"

// TypesSource is the Go source of types.go: the doc comments of Spec and
// its fields, which the JSON schema of data.loopx.spec (engine's
// `loopx policy schema spec`) carries as descriptions.
//
//go:embed types.go
var TypesSource string
