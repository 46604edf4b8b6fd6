#!/usr/bin/env python3
"""A conversational retrieval dev set: chat sessions as notes, questions about what was said.

    python3 benches/conversational_devset.py OUT [--pairs 10] [--sessions 27] [--seed 7]
    gitmem bench retrieval --vault OUT/vault --golden OUT/golden-set.json --search-type text

The conversations are real ones: the BYU PCC chitchat dataset (MIT licence), fetched from PyPI
(`chitchat-dataset`). Each note is one session between two people, written as an import of a
chat would be: a title that says little ("Ada and Ben, session 12"), a date, and one line per
message with the speaker's name, so that each name occurs in every session of its pair. A
session joins two consecutive conversations, so notes are long and many share words.

The questions are simulated known-item queries (Azzopardi, de Rijke and Balog, SIGIR 2007):
pick an informative message of a session, draw two or three of its content words uniformly
(not by rarity, which would favour one ranking), and ask about them the way a person asks an
assistant, naming the speaker. The answer is the session's note. Nothing here is tuned to
gitmem: the seed fixes the draw, and the set is regenerated the same on any machine.
"""

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

NAMES = [
    "Ada", "Ben", "Chloe", "Dev", "Elena", "Farid", "Grace", "Hugo", "Ines", "Jonah",
    "Kira", "Liam", "Maya", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sami", "Tara",
]
STOP = set(
    """a an and are as at be but by did do does for from had has have how i in is it of on or
    our that the their they this to was we were what when where which who whom whose why will
    with you your me my im i'm its it's just so like yeah yes no not oh ok okay haha lol really
    get got go going gonna well too very much can could would should about all any some there
    then than them he she him her his hers been being into out up down over again also only one
    know think thats that's dont don't cant can't didnt didn't ive i've youre you're whats what's
    hey hello hi good great nice cool sure maybe thing things lot more most""".split()
)
TEMPLATES = [
    "What did {speaker} say about {words}?",
    "When did {speaker} talk about {words}?",
    "Which chat with {other} was about {words}?",
    "{speaker} mentioned {words} once, what was that?",
    "Find the conversation where {speaker} brought up {words}",
]


def fetch_dataset(cache: Path) -> dict:
    wheel = next(cache.glob("chitchat_dataset-*.whl"), None)
    if wheel is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
             "--dest", str(cache), "chitchat-dataset==0.9.0"],
            check=True,
        )
        wheel = next(cache.glob("chitchat_dataset-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        return json.loads(z.read("chitchat_dataset/dataset.json"))


def content_words(text: str) -> list[str]:
    words = re.findall(r"[A-Za-z][A-Za-z']+", text)
    return [w for w in words if len(w) > 2 and "'" not in w and w.lower() not in STOP]


def session_note(pair, number, date, conversations):
    a, b = pair
    title = f"{a} and {b}, session {number}"
    lines = [f"---\ntitle: {title}\ndate: {date}\ntype: conversation\n---\n", f"# {title}\n"]
    messages = []
    for conversation in conversations:
        senders = {}
        for turn in conversation["messages"]:
            for message in turn:
                speaker = senders.setdefault(message["sender"], pair[len(senders) % 2])
                text = " ".join(message["text"].split())
                if text:
                    lines.append(f"**{speaker}:** {text}  ")
                    messages.append((speaker, text))
        lines.append("")
    return title, "\n".join(lines) + "\n", messages


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--sessions", type=int, default=27)
    parser.add_argument("--questions", type=int, default=5, help="per session")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cache = Path(tempfile.gettempdir()) / "gitmem-devset-cache"
    cache.mkdir(exist_ok=True)
    data = fetch_dataset(cache)
    conversations = [data[k] for k in sorted(data) if len(data[k]["messages"]) >= 10]
    rng.shuffle(conversations)
    vault = args.out / "vault"
    vault.mkdir(parents=True, exist_ok=True)
    golden = []
    names = NAMES[:]
    rng.shuffle(names)
    take = iter(conversations)
    for p in range(args.pairs):
        pair = (names[(2 * p) % len(names)], names[(2 * p + 1) % len(names)])
        folder = f"{pair[0]} and {pair[1]}"
        (vault / folder).mkdir(exist_ok=True)
        for s in range(1, args.sessions + 1):
            chats = [next(take), next(take)]
            date = chats[0]["start"][:10]
            title, text, messages = session_note(pair, s, date, chats)
            path = f"{folder}/Session {s:02}.md"
            (vault / path).write_text(text, encoding="utf-8")
            informative = [m for m in messages if len(set(content_words(m[1]))) >= 4]
            for speaker, text in rng.sample(informative, min(args.questions, len(informative))):
                words = list(dict.fromkeys(w.lower() for w in content_words(text)))
                drawn = rng.sample(words, rng.choice([2, 3]))
                other = pair[1] if speaker == pair[0] else pair[0]
                query = rng.choice(TEMPLATES).format(
                    speaker=speaker, other=other, words=" ".join(drawn)
                )
                golden.append({
                    "id": f"c{len(golden) + 1:04}",
                    "query": query,
                    "relevant_paths": [path],
                    "partial_paths": [],
                    "category": "conversational",
                })
    (args.out / "golden-set.json").write_text(json.dumps(golden, indent=1), encoding="utf-8")
    print(f"{args.pairs * args.sessions} sessions, {len(golden)} questions in {args.out}")


if __name__ == "__main__":
    main()
