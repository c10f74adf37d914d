package rulebook

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// goDocs maps "pkg.Type" and "pkg.Type.Field" (pkg is the name of the
// source's package) to the doc comment of that type or struct field, on
// one line. A field's
// trailing line comment counts; a field without a comment of its own gets
// the previous field's when it names the field ("Goal and Agent are …").
func goDocs(sources ...string) (map[string]string, error) {
	docs := map[string]string{}
	fset := gotoken.NewFileSet()
	for _, src := range sources {
		f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != gotoken.TYPE {
				continue
			}
			for _, sp := range gd.Specs {
				ts := sp.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				name := f.Name.Name + "." + ts.Name.Name
				if doc != nil {
					docs[name] = oneLine(doc.Text())
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				var above []string // the comments so far, for "A and B are …"
				for _, fld := range st.Fields.List {
					text := ""
					if fld.Doc != nil {
						text = oneLine(fld.Doc.Text())
						above = append(above, text)
					} else if fld.Comment != nil {
						text = oneLine(fld.Comment.Text())
					}
					for _, n := range fld.Names {
						for i := len(above) - 1; text == "" && i >= 0; i-- {
							if mentions(above[i], n.Name) {
								text = above[i]
							}
						}
						if text != "" {
							docs[name+"."+n.Name] = text
						}
					}
				}
			}
		}
	}
	return docs, nil
}

// describe sets the description of each property of s (the schema of
// Go type t) to its field's doc comment, all the way down.
func describe(s *jsonschema.Schema, t reflect.Type, docs map[string]string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		describe(s.Items, t.Elem(), docs)
	case reflect.Map:
		describe(s.AdditionalProperties, t.Elem(), docs)
	case reflect.Struct:
		pkg := t.PkgPath()[strings.LastIndex(t.PkgPath(), "/")+1:]
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			p := s.Properties[name]
			if p == nil || name == "" || name == "-" || f.Anonymous {
				continue
			}
			owner := t // the struct declaring f (an embedded one for a promoted field)
			if len(f.Index) > 1 {
				owner = t.FieldByIndex(f.Index[:len(f.Index)-1]).Type
				for owner.Kind() == reflect.Pointer {
					owner = owner.Elem()
				}
			}
			if d := docs[pkg+"."+owner.Name()+"."+f.Name]; d != "" {
				p.Description = d
			}
			describe(p, f.Type, docs)
		}
	}
}

// mentions reports whether doc names the Go identifier name as a word.
func mentions(doc, name string) bool {
	for _, w := range strings.FieldsFunc(doc, func(r rune) bool {
		return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		if w == name {
			return true
		}
	}
	return false
}

// oneLine is s with every run of white space (newlines included) one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
