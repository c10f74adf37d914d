// Package lint owns what `loopx check` audits beyond vetting the spec and
// compiling the policies: the lint rules, written in Rego and
// embedded (rules/<rule>/<rule>.rego, a _test.rego beside each), run over
// the exported spec and a read-only state snapshot; the publication scanner
// (scan.go), which looks for credentials, private addresses, home paths and
// internal ticket ids in the files to be published; and the findings'
// renderings (text, JSON, SARIF 2.1.0).
//
// lint imports neither the engine nor the kernel: callers
// build the state snapshot and pass it in as plain data.
package lint
