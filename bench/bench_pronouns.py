"""Pronoun resolution accuracy on hand-labelled mention pairs.

Each item is a short text, a pronoun occurring once in it and the lemma of
the noun it refers to (labelled by hand, for this benchmark; the sentences
were written for it, in the style of the StoryAnalogy and AnaloBench
stories). The extraction rules (:func:`extract.rules.sentence_triples`) run
sentence by sentence as the builder runs them; a pair counts as right when
the pronoun appears in a triple as a mention of the gold concept, wrong
when it appears as a mention of another, and unresolved when it appears in
no triple.

``--rules FILE`` loads another version of ``extract/rules.py`` (e.g. the one
of an earlier commit, ``git show REV:extract/rules.py > /tmp/old_rules.py``)
to compare; it must have the same ``sentence_triples`` interface.

Usage: ``.venv/bin/python bench/bench_pronouns.py [--rules FILE]``
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from dri.extract import load_nlp, rules
from dri.extract.sentences import split_sentences

#: (text, pronoun, gold antecedent lemma)
PAIRS = [
    ("The dog found the bone and buried it.", "it", "bone"),
    ("The girl saw her brother and hugged him.", "him", "brother"),
    ("The man bought a car. He drove it home.", "He", "man"),
    ("The man bought a car. He drove it home.", "it", "car"),
    ("Mary met John at the station. She liked him.", "She", "mary"),
    ("Mary met John at the station. She liked him.", "him", "john"),
    ("The committee rejected the proposal because it cost too much.", "it", "proposal"),
    ("The cat chased the mouse and caught it.", "it", "mouse"),
    ("The soldiers attacked the fort. They destroyed it.", "They", "soldier"),
    ("The soldiers attacked the fort. They destroyed it.", "it", "fort"),
    ("The farmer fed the horses and then sold them.", "them", "horse"),
    ("The boy broke the window, and the neighbour scolded him.", "him", "boy"),
    ("The queen visited the village. The people welcomed her.", "her", "queen"),
    ("The company hired a lawyer. She won the case.", "She", "lawyer"),
    ("The river flooded the town. It destroyed the bridge.", "It", "river"),
    ("The scientists tested the drug. They liked it.", "They", "scientist"),
    ("The scientists tested the drug. They liked it.", "it", "drug"),
    ("The wolf followed the sheep and ate it.", "it", "sheep"),
    ("The children found a puppy and took it home.", "it", "puppy"),
    ("Anna called her mother. She wanted advice.", "She", "anna"),
    ("The army surrounded the city and besieged it.", "it", "city"),
    ("The student wrote an essay and the teacher marked it.", "it", "essay"),
    ("The hawk caught a rabbit and killed it.", "it", "rabbit"),
    ("Tom saw the bear. It ran away.", "It", "bear"),
    ("The doctor examined the patient and treated him.", "him", "patient"),
    ("The boys washed the car and dried it.", "it", "car"),
    ("Peter lost his keys. He searched the house for them.", "them", "key"),
    ("The teacher gave the pupils a test. They failed it.", "They", "pupil"),
    ("The king built a castle. The enemy burned it.", "it", "castle"),
    ("Susan painted the fence and her father admired it.", "it", "fence"),
    ("The engineer repaired the pump. It worked again.", "It", "pump"),
    ("The fox tricked the crow and stole its cheese.", "its", "crow"),
]


def _load(path: Path | None):
    if path is None:
        return rules
    spec = importlib.util.spec_from_file_location("rules_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def resolve(module, nlp, text: str, pronoun: str) -> str | None:
    """The lemma the pronoun was resolved to, or None."""
    previous = []
    for sentence in split_sentences(text):
        found = module.sentence_triples(nlp(sentence), previous)
        for triple in found.triples:
            for mention in (triple.subject, triple.object):
                if mention is not None and mention.text == pronoun:
                    return mention.lemma
        previous = found.nouns
    return None


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", type=Path, help="another extract/rules.py to evaluate")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    module, nlp = _load(args.rules), load_nlp()
    right = wrong = missing = 0
    for text, pronoun, gold in PAIRS:
        got = resolve(module, nlp, text, pronoun)
        if got == gold:
            right += 1
        elif got is None:
            missing += 1
        else:
            wrong += 1
        if args.verbose and got != gold:
            print(f"  {pronoun!r} -> {got} (gold {gold}): {text}")
    n = len(PAIRS)
    print(f"{args.rules or 'extract/rules.py'}: {n} pairs, right {right} ({right / n:.0%}), ", end="")
    print(f"wrong {wrong}, unresolved {missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
