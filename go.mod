module github.com/gangsched/gangsched

go 1.26

require (
	github.com/google/btree v1.1.3
	github.com/stretchr/testify v1.11.1
	pgregory.net/rapid v1.3.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
