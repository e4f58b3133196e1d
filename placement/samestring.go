package placement

import "unsafe"

// sameString reports x == y, without reading the bytes when both are the
// same memory (equal lengths and data pointers), as a node name or set
// name copied from one answer to the next is: a resize compares each of
// up to thousands of entries of its Existing with the reservation's, two
// names an entry, and calling the runtime's comparison for each was half
// of that check. Strings in other memory are compared as ==.
func sameString(x, y string) bool {
	return len(x) == len(y) && (unsafe.StringData(x) == unsafe.StringData(y) || x == y)
}

// sameRows reports whether a and b (of one length) hold the same bytes:
// every entry's names in the same memory, NodeIDs and counts equal. A
// PodSetAssignment has no padding (the array below fails to compile
// otherwise), so equal bytes are equal fields; equal names in different
// memory differ here, for the caller to compare field by field. A
// resize's Existing of hundreds of entries is compared at the speed of
// the runtime's memory comparison instead of four fields an entry.
func sameRows(a, b []PodSetAssignment) bool {
	size := len(a) * int(unsafe.Sizeof(PodSetAssignment{}))
	return len(a) == len(b) && (len(a) == 0 ||
		string(unsafe.Slice((*byte)(unsafe.Pointer(&a[0])), size)) == string(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), size)))
}

// A PodSetAssignment is two strings and two int32s with no padding.
var _ = [1]struct{}{}[unsafe.Sizeof(PodSetAssignment{})-(2*unsafe.Sizeof("")+2*unsafe.Sizeof(int32(0)))]
