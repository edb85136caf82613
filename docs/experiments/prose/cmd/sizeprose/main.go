// Command sizeprose is cmd/sizebase plus prose's tagger and NER on every
// user turn: the difference of their sizes is what prose adds to a binary.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/jdkato/prose/v2"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

func main() {
	apps, err := prompts.Builtin()
	if err != nil {
		panic(err)
	}
	var s extract.Session
	if err := json.NewDecoder(os.Stdin).Decode(&s); err != nil {
		panic(err)
	}
	n := 0
	for _, m := range s.Messages {
		doc, err := prose.NewDocument(m.Content)
		if err != nil {
			panic(err)
		}
		n += len(doc.Tokens())
	}
	fmt.Println(len(extract.Rules(apps["mona"], s, time.Now()).Memories), n)
}
