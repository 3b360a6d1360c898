"""Identifiers in a text: names a criterion requires whole ("HTML5", "v1.2.1", "app.py", "C++").

BEAM's rubrics often want a name: "LLM response should state: HTML5", "…: Authlib v1.2.1".
Such a name is a value, like a number: "HTML4" is another one, however alike the spelling, and a
version is not the number its first two parts make ("1.2.2" is not "1.2.1").  So identifiers are
read apart from words and numbers, compared by a key (lower case, a version's "v" off, a name's
dots and dashes off), and found in an answer as one token or two ("HTML 5", "Python 3.11").
"""

from __future__ import annotations

import re

# A name with digits in it ("HTML5", "v1.2.1", "x86_64", "3C2", "OAuth2"), a dotted version
# ("1.2.1"), a file or library name ("app.py", "Chart.js"), "C++" and "C#".
_FILE_EXTENSIONS = (
    "py|js|mjs|ts|jsx|tsx|json|yaml|yml|toml|ini|cfg|conf|env|md|rst|txt|csv|tsv|html|htm|css|scss|sql|sh|"
    "xml|java|kt|rb|go|rs|php|cpp|hpp|cs|swift|lock|log|db|sqlite|ipynb|pdf|docx|xlsx|pptx|png|jpe?g|gif|svg"
)
IDENTIFIER = re.compile(
    r"(?<![\w.+#-])(?:"
    r"[a-z][a-z_]*\d[a-z0-9_]*(?:[.-][a-z0-9_]+)*"  # html5, v1.2.1, python3.11, es2015, s3
    r"|\d+[a-z]+\d[a-z0-9_]*"  # 3c2, 2d6
    r"|\d+(?:\.\d+){2,}"  # 1.2.1, 192.168.0.1
    rf"|[a-z0-9][\w-]+\.(?:{_FILE_EXTENSIONS})"  # app.py, config.yaml, chart.js
    r"|[a-z]\+\+|[a-z]#"  # c++, c#
    r")(?![\w+#]|\.[a-z0-9])"
)


def find_identifiers(text: str) -> tuple[list[str], str]:
    """The keys of the identifiers in `text` (clean, lower case) and the text without the digits of
    its names: "3C2" says no 3 and "1.2.1" no 1.2, while "app.py" keeps its words."""
    keys = [identifier_key(match.group(0)) for match in IDENTIFIER.finditer(text)]
    rest = IDENTIFIER.sub(lambda match: " " if re.search(r"\d", match.group(0)) else match.group(0), text)
    return keys, rest


def identifier_key(identifier: str) -> str:
    """An identifier as compared: lower case, a version's "v" off, a name's dots and dashes off
    ("Chart.js" ~ "ChartJS"), a version's dots kept ("1.2.1" is not "1.21")."""
    key = identifier.casefold().strip()
    if re.match(r"v\d", key):
        key = key[1:]
    return key if re.search(r"\d\.\d", key) else re.sub(r"[^\w+#]|_", "", key)


def identifier_written(identifier: str, text: str) -> list[tuple[int, int]]:
    """Where `text` (a `clean`ed answer) writes the identifier (a key): as one token ("HTML5") or two
    ("HTML 5", "Python 3.11"), nothing of it left over."""
    tokens = [
        (match.start(), match.end(), match.group(0).rstrip(".-")) for match in re.finditer(r"[\w.+#-]+", text)
    ]
    spans = []
    for index, (start, end, token) in enumerate(tokens):
        if identifier_key(token) == identifier:
            spans.append((start, end))
        elif index + 1 < len(tokens) and identifier_key(token + tokens[index + 1][2]) == identifier:
            spans.append((start, tokens[index + 1][1]))
    return spans


__all__ = ["IDENTIFIER", "find_identifiers", "identifier_key", "identifier_written"]
