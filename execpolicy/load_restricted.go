package execpolicy

import (
	"fmt"

	"go.starlark.net/syntax"
)

// checkRestricted reports the first construct of f outside the literal
// subset of the rules language, which Loader.Restricted enforces. In the
// subset a file is a sequence of builtin calls (prefix_rule, network_rule,
// host_executable) and assignments of names, and every value is a literal,
// a name bound earlier, or a list, tuple or dict of those; "+" joins
// literals only. Nothing can then grow a value beyond what the source
// spells out, so memory stays proportional to the file's size: Starlark has
// no allocation limit, and one line such as `x = "a" * 1000000000` or a
// chain of `b = a + a` would otherwise take gigabytes in a handful of
// steps.
func checkRestricted(f *syntax.File, isBuiltin func(string) bool) error {
	for _, stmt := range f.Stmts {
		var err error
		switch s := stmt.(type) {
		case *syntax.ExprStmt:
			err = checkRestrictedCall(s.X, isBuiltin)
		case *syntax.AssignStmt:
			if _, ok := s.LHS.(*syntax.Ident); !ok || s.Op != syntax.EQ {
				err = restrictedError(s, "only `name = value` assignments")
			} else {
				err = checkRestrictedValue(s.RHS, isBuiltin)
			}
		default:
			err = restrictedError(stmt, "only builtin calls and `name = value` assignments at top level")
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func checkRestrictedCall(e syntax.Expr, isBuiltin func(string) bool) error {
	call, ok := e.(*syntax.CallExpr)
	if !ok {
		return restrictedError(e, "only calls of prefix_rule, network_rule and host_executable as statements")
	}
	fn, ok := call.Fn.(*syntax.Ident)
	if !ok || !isBuiltin(fn.Name) {
		return restrictedError(call.Fn, "only prefix_rule, network_rule and host_executable may be called")
	}
	for _, arg := range call.Args {
		if kw, ok := arg.(*syntax.BinaryExpr); ok && kw.Op == syntax.EQ {
			if _, ok := kw.X.(*syntax.Ident); !ok {
				return restrictedError(kw, "a malformed keyword argument")
			}
			arg = kw.Y
		}
		if err := checkRestrictedValue(arg, isBuiltin); err != nil {
			return err
		}
	}
	return nil
}

// checkRestrictedValue accepts literals, names, and lists, tuples and
// dicts of those; "+" only between operands that hold no name.
func checkRestrictedValue(e syntax.Expr, isBuiltin func(string) bool) error {
	switch v := e.(type) {
	case *syntax.Literal, *syntax.Ident:
		return nil
	case *syntax.ParenExpr:
		return checkRestrictedValue(v.X, isBuiltin)
	case *syntax.ListExpr:
		return checkRestrictedValues(v.List, isBuiltin)
	case *syntax.TupleExpr:
		return checkRestrictedValues(v.List, isBuiltin)
	case *syntax.DictExpr:
		for _, entry := range v.List {
			de, ok := entry.(*syntax.DictEntry)
			if !ok {
				return restrictedError(entry, "a malformed dict entry")
			}
			if err := checkRestrictedValues([]syntax.Expr{de.Key, de.Value}, isBuiltin); err != nil {
				return err
			}
		}
		return nil
	case *syntax.UnaryExpr:
		if _, ok := v.X.(*syntax.Literal); ok && (v.Op == syntax.MINUS || v.Op == syntax.PLUS) {
			return nil
		}
	case *syntax.BinaryExpr:
		if v.Op == syntax.PLUS && namesNothing(v.X) && namesNothing(v.Y) {
			return checkRestrictedValues([]syntax.Expr{v.X, v.Y}, isBuiltin)
		}
		return restrictedError(v, fmt.Sprintf("the operator %s (only + between literals)", v.Op))
	}
	return restrictedError(e, "only literals, names, and lists, tuples and dicts of them as values")
}

func checkRestrictedValues(list []syntax.Expr, isBuiltin func(string) bool) error {
	for _, e := range list {
		if err := checkRestrictedValue(e, isBuiltin); err != nil {
			return err
		}
	}
	return nil
}

// namesNothing reports whether e refers to no name, so that the size of
// its value is what the source spells out.
func namesNothing(e syntax.Expr) bool {
	found := false
	syntax.Walk(e, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.Ident); ok {
			found = true
		}
		return !found
	})
	return !found
}

// restrictedError is a load error at n for a construct outside the subset.
func restrictedError(n syntax.Node, what string) error {
	pos, _ := n.Span()
	return syntax.Error{Pos: pos, Msg: "outside the literal subset allowed for an untrusted rules file: " + what}
}
