package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// writeOut writes v to stdout as indented JSON when output is "json",
// else as text; false, with the error on stderr, when writing failed.
func writeOut(stdout, stderr io.Writer, output string, v any, text func(io.Writer)) bool {
	w := bufio.NewWriter(stdout)
	var err error
	if output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(v)
	} else {
		text(w)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintln(stderr, "gangsim:", err)
		return false
	}
	return true
}
