module github.com/mnemo-ai/mnemo/docs/experiments/prose

go 1.26.0

require (
	github.com/jdkato/prose/v2 v2.0.0
	github.com/mnemo-ai/mnemo v0.0.0
)

require (
	github.com/deckarep/golang-set v1.7.1 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/mingrammer/commonregex v1.0.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	github.com/tiktoken-go/tokenizer v0.10.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	gonum.org/v1/gonum v0.7.0 // indirect
	gopkg.in/neurosnap/sentences.v1 v1.0.6 // indirect
)

replace github.com/mnemo-ai/mnemo => ../../..
