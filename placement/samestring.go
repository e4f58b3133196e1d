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
