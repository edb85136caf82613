#!/usr/bin/env python3
"""Derives the training sets in this folder from the upstream data.

Run once, by hand, when a source is added or relabelled; the Go trainer
(`go run ./cmd/risktrain`) reads only the .jsonl files this writes, so the
weights are rebuilt from the repository alone. Each source's folder holds
its LICENSE and SOURCE.md (where it comes from, which commit, how its labels
were mapped). Upstream checkouts are read with `git show` from bare mirrors:

  MIRRORS=/work/.mirror python3 extract/riskml/data/prepare.py

Labels written by the team (relabelled posts) are read from LABELS (the
annotators' files) and joined to the upstream texts by id.
"""
import csv, io, json, os, re, subprocess, sys, zipfile, xml.etree.ElementTree as ET

MIRRORS = os.environ.get("MIRRORS", "/work/.mirror")
LABELS = os.environ.get("LABELS", "/tmp/label")
HERE = os.path.dirname(os.path.abspath(__file__))


def show(repo, path):
    return subprocess.run(["git", "--git-dir", f"{MIRRORS}/{repo}/repo", "show", f"HEAD:{path}"],
                          check=True, capture_output=True).stdout


def write(folder, rows):
    os.makedirs(os.path.join(HERE, folder), exist_ok=True)
    with open(os.path.join(HERE, folder, "items.jsonl"), "w") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(folder, len(rows), file=sys.stderr)


# Phrasings that make a negative doubtful: a text holding one is left out of
# the negatives rather than taught as none (label hygiene).
DOUBT = re.compile(r"kill (my ?self|me)|\bkms\b|suicid|want(ed)? to die|end (it all|my life)|cut(ting)? my ?self|"
                   r"overdos|self.?harm|hang my ?self|better off dead|not wake up|wish i (was|were) dead", re.I)

# --- construct-tracker: the Suicide Risk Lexicon's validated tokens --------
LEXMAP = {
    "Passive suicidal ideation": ("suicidal", "medium", False),
    "Active suicidal ideation & suicidal planning": ("suicidal", "high", False),
    "Lethal means for suicide": ("suicidal", "high", True),
    "Direct self-injury": ("self_harm", "high", True),
    "Other suicidal language": ("suicidal", "medium", False),
    "Burdensomeness": ("suicidal", "medium", True),
    "Sexual abuse & harassment": ("abuse", "high", True),
    "Physical abuse & violence": ("abuse", "high", True),
    "Hopelessness": ("hopelessness", "medium", True),
    "Existential meaninglessness & purposelessness": ("hopelessness", "medium", True),
    "Panic": ("distress", "medium", True),
    "Emotional pain & psychache": ("distress", "medium", True),
}
LEXNONE = ["Relationships & kinship", "Physical health issues & disability", "Finances & work stress",
           "Perfectionism", "Fatigue & tired", "Sleep issues", "Alcohol use", "Other substance use",
           "Mental health treatment", "Incarceration", "Grief & bereavement"]
FIRST = re.compile(r"\b(i|i'm|my|me|myself)\b", re.I)
lex = json.loads(show("danielmlow+construct-tracker",
                      "src/construct_tracker/data/lexicons/suicide_risk_lexicon_v1-0/"
                      "suicide_risk_lexicon_validated_24-08-02T21-27-35.json"))
rows = []
for name, (cls, sev, needfirst) in LEXMAP.items():
    for t in sorted(set(lex[name]["tokens"])):
        if len(t.split()) < 2 or (needfirst and not FIRST.search(t)):
            continue  # one word, or no first person: a topic, not a statement
        rows.append({"id": f"srl-{len(rows):04d}", "text": t, "class": cls, "severity": sev, "construct": name})
for name in LEXNONE:
    for t in sorted(set(lex[name]["tokens"])):
        if not DOUBT.search(t):
            rows.append({"id": f"srl-{len(rows):04d}", "text": t, "class": "none", "construct": name})
write("construct-tracker", rows)

# --- DiaSafety: relabelled "risk ignorance" posts; other contexts as none ---
txt = b"".join(show("thu-coai+DiaSafety", f"DiaSafety_dataset/{s}.json") + b"\n" for s in ("train", "val", "test")).decode()
dec, i, items = json.JSONDecoder(), 0, []
while i < len(txt):
    while i < len(txt) and txt[i].isspace():
        i += 1
    if i >= len(txt):
        break
    o, i = dec.raw_decode(txt, i)
    items += o
risk_ctx, other_ctx, seen = [], [], set()
for x in items:
    c = x["context"]
    if c in seen:
        continue
    seen.add(c)
    (risk_ctx if x["category"] == "Risk Ignorance" else other_ctx).append(c)
rows = []
for part in ("a", "b"):
    path = os.path.join(LABELS, f"diasafety_{part}.labels.jsonl")
    inp = [json.loads(l) for l in open(os.path.join(LABELS, f"diasafety_{part}.jsonl"))]
    if not os.path.exists(path):
        print("missing", path, file=sys.stderr)
        continue
    labs = {l["id"]: l for l in map(json.loads, open(path))}
    for it in inp:
        lab = labs.get(it["id"])
        if not lab:
            continue
        rows.append(relabel := {"id": it["id"], "text": it["text"], "class": lab["class"],
                                "severity": lab.get("severity", ""), "actor": lab.get("actor", ""),
                                "signals": lab.get("signals", []), "key": lab.get("key", "")})
# Contexts of the other categories (offending, biased, medical questions):
# none, unless a doubtful phrasing is in them; every fourth, to keep the
# balance of the sets.
for j, c in enumerate(other_ctx):
    if not DOUBT.search(c):
        rows.append({"id": f"diaother-{j:05d}", "text": c, "class": "none"})
write("diasafety", rows)

# --- counsel-chat: relabelled questions --------------------------------------
path = os.path.join(LABELS, "counsel.labels.jsonl")
rows = []
if os.path.exists(path):
    labs = {l["id"]: l for l in map(json.loads, open(path))}
    for it in map(json.loads, open(os.path.join(LABELS, "counsel.jsonl"))):
        lab = labs.get(it["id"])
        if lab:
            rows.append({"id": it["id"], "text": it["text"], "class": lab["class"], "severity": lab.get("severity", ""),
                         "actor": lab.get("actor", ""), "signals": lab.get("signals", []), "key": lab.get("key", ""),
                         "topic": it["topic"]})
write("counsel-chat", rows)

# --- SAD: everyday stressors, none ---------------------------------------------
z = zipfile.ZipFile(io.BytesIO(show("PervasiveWellbeingTech+Stress-Annotated-Dataset-SAD", "SAD_v1.zip")))
xl = zipfile.ZipFile(io.BytesIO(z.read([n for n in z.namelist() if n.endswith(".xlsx")][0])))
ns = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
shared = ["".join(t.text or "" for t in si.iter("{%s}t" % ns["m"]))
          for si in ET.fromstring(xl.read("xl/sharedStrings.xml")).findall("m:si", ns)]
sheet = ET.fromstring(xl.read("xl/worksheets/sheet1.xml"))
table = []
for row in sheet.iter("{%s}row" % ns["m"]):
    vals = {}
    for cell in row.findall("m:c", ns):
        ref = re.match(r"[A-Z]+", cell.get("r")).group(0)
        v = cell.find("m:v", ns)
        if v is None:
            continue
        vals[ref] = shared[int(v.text)] if cell.get("t") == "s" else v.text
    table.append(vals)
head = table[0]
col = {v: k for k, v in head.items()}
rows = []
for r in table[1:]:
    s = (r.get(col["sentence"]) or "").strip()
    sev = float(r.get(col["avg_severity"]) or 0)
    if not s or DOUBT.search(s):
        continue
    # The most severe emotional turmoil may be distress: left out, not taught as none.
    if r.get(col["top_label"]) == "Emotional Turmoil" and sev >= 7:
        continue
    rows.append({"id": f"sad-{r.get(col['sID'])}", "text": s, "class": "none"})
write("sad", rows)

# --- Davidson et al.: tweets, hate, offensive or neither: all none ----------
rows = []
for j, r in enumerate(csv.DictReader(io.StringIO(show("t-davidson+hate-speech-and-offensive-language",
                                                        "data/labeled_data.csv").decode("utf-8", "replace")))):
    t = r["tweet"].strip()
    if j % 5 == 0 and not DOUBT.search(t):
        rows.append({"id": f"davidson-{r['']}", "text": t, "class": "none"})
write("davidson", rows)

# --- GoEmotions: Reddit comments, all none -----------------------------------
rows = []
for j, line in enumerate(show("monologg+GoEmotions-pytorch", "data/original/train.tsv").decode("utf-8").splitlines()):
    parts = line.split("\t")
    if len(parts) < 3:
        continue
    t = parts[0].strip()
    if t and not DOUBT.search(t):
        rows.append({"id": f"goemotions-{parts[2]}", "text": t, "class": "none"})
write("goemotions", rows)
