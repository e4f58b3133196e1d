// Package manifest reads Kubernetes manifests — multi-document YAML (or
// JSON) files, directories of them, and standard input — into typed
// k8s.io/api objects, the way kubectl -f reads them, and says exactly where
// bad input is: file, document number, line, object and field.
//
// Decoding is strict, as the API server's is: a misspelt field, a value of
// the wrong type or a malformed quantity is an error, not a silently
// dropped value. Kinds this package does not decode (see [Supported]) are
// returned unparsed so the caller can report that it ignored them.
//
// Cost: linear in the input size; the whole input of one source is held in
// memory while it is decoded. A document of a kind this package decodes is
// parsed once (go.yaml.in/yaml/v2, the parser sigs.k8s.io/yaml and so
// kubectl use) and filled into its typed object from the parsed tree; a
// document the fast path is not sure of (any error, a kind it only
// identifies) takes the longer path of YAML to JSON to the typed object,
// which words the errors. Both decide alike (tested and fuzzed).
//
// A source whose first non-blank byte opens a JSON object is a JSON stream
// instead: objects one after another (one a line, or pretty-printed), or
// the List `kubectl get -o json` writes. Each object of a kind this
// package decodes goes straight from its bytes into its typed object with
// the API server's strict decoder (sigs.k8s.io/json), its type read from
// its apiVersion and kind by one quick pass over the bytes first: three to
// five times faster a document than the YAML reader, six to nine times
// the generic path's (BenchmarkDecode). Errors are the YAML reader's for
// the same object, plus line and column for JSON syntax.
package manifest
