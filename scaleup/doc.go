// Package scaleup answers "what would make it fit" for a PodGroup that does
// not fit: the fewest nodes of one of the given node shapes to add, and the
// domain of the group's required topology key to add them to, so that
// [placement.Solve] schedules the group with its constraints. It is the
// question cluster-autoscaler cannot answer for gangs today
// (kubernetes/autoscaler#8783): its scale-up simulates pods one by one,
// while a gang needs all its members placed at once, in one rack or block.
//
// # Usage
//
//	shapes := scaleup.ShapesOf(snap, tree.Keys())          // the kinds of node the cluster has
//	sug, err := scaleup.Suggest(snap, group, constraints, shapes, scaleup.Options{TopologyKeys: tree.Keys()})
//	// sug.Found: add sug.Count nodes of sug.Shape to sug.Domain (sug.Nodes, labelled)
//
// # Semantics
//
// "Fits" is what placement.Solve says: a Scheduled decision, with the
// group's required topology key, the caller's filters, and the pods that
// run now kept where they are. Added nodes are of one shape (as
// cluster-autoscaler grows one node group per scale-up) and join one
// existing domain of the required key, with that domain's labels, or — when
// Options.NewDomain allows it — a new domain. Without a required key they
// join the cluster. The answer has the fewest nodes; ties break by existing
// domain before new, then domain path, then shape name.
//
// # Invariants
//
// The suggested nodes, added to the snapshot, make the group's decision
// Scheduled; when the suggestion is Proven, no shape and domain with one
// node fewer does (checked against trying every choice in this package's
// property tests, TestProp_SuggestFewest). The answer depends only on the
// contents of its arguments, never on their order.
//
// # Cost
//
// The search solves the group on one domain at a time (its nodes and
// pods, plus the added ones), not on the whole cluster: a candidate
// (domain, shape) is pruned by a lower bound on the nodes it needs, from
// the members' summed requests against the domain's summed free capacity,
// and the rest are searched by bisection between that bound and the most
// nodes that could help (one per member still to place). Options.MaxSolves
// bounds the work; the result says when it stopped the search.
package scaleup
