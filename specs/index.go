package specs

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// posIndex maps a field path of the user's files to the position of the
// first label that declares it (files in load order, then source order).
// It finds the user's position for errors CUE reports only at the schema's
// position (a missing required field) or with no position at all.
type posIndex map[string]token.Pos

// pathKey joins path elements with a separator no label can be confused with.
func pathKey(path []string) string { return strings.Join(path, "\x00") }

func (ix posIndex) addFile(f *ast.File) {
	ix.addDecls(nil, f.Decls)
}

func (ix posIndex) addDecls(prefix []string, decls []ast.Decl) {
	for _, d := range decls {
		switch d := d.(type) {
		case *ast.Field:
			name, _, err := ast.LabelName(d.Label)
			if err != nil || name == "" {
				continue
			}
			if strings.HasPrefix(name, "#") || strings.HasPrefix(name, "_") {
				// Definitions and hidden fields: not spec fields, but their
				// bodies often are (goals: g1: _base & {…}); skip them, the
				// use site is indexed.
				if _, ok := d.Label.(*ast.Ident); ok {
					continue
				}
			}
			path := append(prefix[:len(prefix):len(prefix)], name)
			k := pathKey(path)
			if _, ok := ix[k]; !ok && d.Label.Pos().IsValid() {
				ix[k] = d.Label.Pos()
			}
			ix.addExpr(path, d.Value)
		case *ast.EmbedDecl:
			ix.addExpr(prefix, d.Expr)
		case *ast.Comprehension:
			ix.addExpr(prefix, d.Value)
		}
	}
}

func (ix posIndex) addExpr(path []string, x ast.Expr) {
	switch x := x.(type) {
	case *ast.StructLit:
		ix.addDecls(path, x.Elts)
	case *ast.BinaryExpr:
		ix.addExpr(path, x.X)
		ix.addExpr(path, x.Y)
	case *ast.ParenExpr:
		ix.addExpr(path, x.X)
	case *ast.UnaryExpr:
		ix.addExpr(path, x.X)
	case *ast.ListLit:
		for i, e := range x.Elts {
			ix.addListElem(path, i, e)
		}
	}
}

func (ix posIndex) addListElem(path []string, i int, e ast.Expr) {
	if _, ok := e.(*ast.Ellipsis); ok {
		return
	}
	p := append(path[:len(path):len(path)], strconv.Itoa(i))
	k := pathKey(p)
	if _, ok := ix[k]; !ok && e.Pos().IsValid() {
		ix[k] = e.Pos()
	}
	ix.addExpr(p, e)
}

// nearest returns the position of the longest prefix of path that the user's
// files declare, and how many elements of path that prefix has (0 and NoPos
// when not even the first element is declared).
func (ix posIndex) nearest(path []string) (token.Pos, int) {
	for n := len(path); n > 0; n-- {
		if p, ok := ix[pathKey(path[:n])]; ok {
			return p, n
		}
	}
	return token.NoPos, 0
}
