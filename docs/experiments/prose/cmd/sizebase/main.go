// Command sizebase is the rules extractor alone, to measure the binary size
// prose adds (see cmd/sizeprose).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

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
	fmt.Println(len(extract.Rules(apps["mona"], s, time.Now()).Memories))
}
