package loopx.lib_test

import data.loopx.lib

test_glob_match_edges if {
	lib.glob_match("**", "a/b/.c")
	lib.glob_match("**", ".env")
	lib.glob_match("*", ".env")
	not lib.glob_match("*", "a/b")
	lib.glob_match("a/**/b", "a/b")
	lib.glob_match("a/**/b", "a/x/y/b")
	not lib.glob_match("a/**/b", "ab")
	lib.glob_match("**/x/**", "x/y")
	not lib.glob_match("docs/**", "docs")
	lib.glob_match("docs/*.md", "docs/a.md")
	not lib.glob_match("docs/*.md", "docs/x/a.md")
	lib.glob_match("src/[ab].go", "src/a.go")
	lib.glob_match("./cmd/*/main.go", "cmd/loopx/main.go")
	lib.glob_match("**/*_test.go", "main_test.go")
}
