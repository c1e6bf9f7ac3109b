"""The tiny corpus the flow tests write for themselves."""

from __future__ import annotations

from pathlib import Path

TEXTS = {
    "solar.txt": (
        "The sun attracts the planets. The sun is more massive than the planets. "
        "The planets revolve around the sun. Gravity holds the planets in orbit."
    ),
    "atom.txt": (
        "The nucleus attracts the electrons. The nucleus is more massive than the electrons. "
        "The electrons revolve around the nucleus. Electric charge holds the electrons in orbit."
    ),
    "fortress.txt": (
        "A general wanted to capture a fortress. The roads radiated from the fortress. "
        "The general divided his army into small groups. The groups attacked the fortress together."
    ),
    "tumour.txt": (
        "A doctor wanted to destroy a tumour. The rays damage the healthy tissue. "
        "The doctor divided the rays into weak rays. The weak rays destroyed the tumour together."
    ),
}

# Each base text against its analogue, as the manifest of the demo corpora does.
MANIFEST = "source,target,group\nsolar.txt,atom.txt,science\nfortress.txt,tumour.txt,story\n"


def write_corpus(folder: Path, texts: dict[str, str] = TEXTS, manifest: str | None = MANIFEST) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / name).write_text(text + "\n", encoding="utf-8")
    if manifest is not None:
        (folder / "manifest.csv").write_text(manifest, encoding="utf-8")
    return folder
