package placement

import "testing"

// wholeRun counts a domain at once only when allowed holds exactly its
// nodes next: any gap, repeat, disorder or shortfall answers 0.
func TestWholeRun(t *testing.T) {
	dn := []NodeID{4, 5, 6, 7}
	for _, tc := range []struct {
		a    []NodeID
		dn   []NodeID
		want int
	}{
		{[]NodeID{4, 5, 6, 7}, dn, 4},
		{[]NodeID{4, 5, 6, 7, 8, 9}, dn, 4},
		{[]NodeID{4, 5, 6}, dn, 0},                      // allowed ends first
		{[]NodeID{4, 6, 5, 7}, dn, 0},                   // same ends, not ascending
		{[]NodeID{4, 5, 5, 7}, dn, 0},                   // a repeat
		{[]NodeID{3, 5, 6, 7}, dn, 0},                   // starts elsewhere
		{[]NodeID{4, 5, 6, 8}, dn, 0},                   // ends elsewhere
		{[]NodeID{4, 5, 7, 8}, []NodeID{4, 5, 7, 8}, 0}, // the domain is not consecutive
		{[]NodeID{4}, []NodeID{4}, 0},                   // one node: counted as before
	} {
		if got := wholeRun(tc.a, tc.dn); got != tc.want {
			t.Errorf("wholeRun(%v, %v) = %d, want %d", tc.a, tc.dn, got, tc.want)
		}
	}
}
