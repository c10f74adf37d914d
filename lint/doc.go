// Package lint holds the rules `loopx check` runs over a project's exported
// spec and state snapshot (written in Rego), and the publication scanner.
// The rules arrive with the check issue; today the package only fixes the
// place they live in the layout.
package lint
