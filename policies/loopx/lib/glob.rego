# Path globs, shared by the permission decision (scope.write, scope.deny,
# grant.paths) and loopx check's lint rules: the one Rego implementation of
# loopx's doublestar semantics (the Go one, engine.ScopesOverlap's
# globsOverlap, decides whether two scopes overlap).
package loopx.lib

# glob_match(g, name): doublestar globs: ** crosses directories, * and ? do
# not, dotfiles match like any file, "dir/**" matches below dir but not dir
# itself, "**/" and "/**/" also match zero directories, a leading "./" is
# ignored, patterns are anchored at the project root.
glob_match(g, name) := glob.match(doublestar(trim_prefix(g, "./")), ["/"], name)

doublestar(g) := concat("", ["{,**/}", substring(s, 3, -1)]) if {
	s := replace(g, "/**/", "{/,/**/}")
	startswith(s, "**/")
} else := replace(g, "/**/", "{/,/**/}")
