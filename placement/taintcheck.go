package placement

import "fmt"

// knownEffect reports whether e is an effect core/v1 defines.
func knownEffect(e TaintEffect) bool {
	return e == TaintEffectNoSchedule || e == TaintEffectPreferNoSchedule || e == TaintEffectNoExecute
}

// knownOperator reports whether op is a toleration operator core/v1
// defines, empty (Equal) included.
func knownOperator(op TolerationOperator) bool {
	return op == "" || op == TolerationOpEqual || op == TolerationOpExists
}

// checkTaints refuses a taint effect core/v1 does not define: the API
// server's validation (ValidateTaint) requires one of the three, and an
// unknown one would silently keep every pod off the node or none.
func checkTaints(n *Node) error {
	for i, t := range n.Taints {
		if !knownEffect(t.Effect) {
			return Errorf(ErrInvalid, nodeObj(n.Name), fmt.Sprintf("spec.taints[%d].effect", i),
				"%q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
		}
	}
	return nil
}

// validTolerations is checkTolerations without building an error, for the
// single passes that only need to know whether to look for one.
func validTolerations(ts []Toleration) bool {
	for _, t := range ts {
		if !knownOperator(t.Operator) || (t.Effect != "" && !knownEffect(t.Effect)) {
			return false
		}
	}
	return true
}

// checkTolerations refuses an operator or effect core/v1 does not define
// (ValidateTolerations): an unknown operator would tolerate nothing, an
// unknown effect match no taint, and neither says so.
func checkTolerations(obj func() string, field string, ts []Toleration) error {
	for i, t := range ts {
		if !knownOperator(t.Operator) {
			return Errorf(ErrInvalid, obj(), fmt.Sprintf("%s[%d].operator", field, i), "%q is not Equal or Exists", t.Operator)
		}
		if t.Effect != "" && !knownEffect(t.Effect) {
			return Errorf(ErrInvalid, obj(), fmt.Sprintf("%s[%d].effect", field, i),
				"%q is not NoSchedule, PreferNoSchedule or NoExecute (or empty, for every effect)", t.Effect)
		}
	}
	return nil
}
