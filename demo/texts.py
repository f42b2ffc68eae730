"""The demo campaign's own text, in French, and in English for the English edition: a page
speaks its campaign's language, chrome and campaign text alike (the names of people, labs and
corpora stay as they are). The tasks' names are matched as the task writers (demo/*.py) write
them."""

from __future__ import annotations

import tomllib

from scorehouse.warehouse.toml_writer import toml_value

DESCRIPTION = (
    "Campagne de démonstration (données synthétiques) sur le modèle du service vocal de la thèse, "
    "chapitre 4 : énoncés courts d'appelants, bruits, faux départs, mots hors vocabulaire et "
    "commentaires. Test_I contient les cinq énoncés de l'exemple du tableau 4.4. La tâche "
    "d'étiquetage reprend la moitié du test UD French GSD (CC BY-SA 4.0) avec un jeu d'étiquettes "
    "positionnel pivot et quatre étiqueteurs simulés publiés. La tâche EASY convertit le test GSD "
    "en constituants et relations EASY, répartis en quatre genres (répartition synthétique), avec "
    "cinq analyseurs simulés ; la tâche en dépendances note trois analyseurs simulés avec les "
    "mesures de CoNLL 2018. La tâche de coréférence reprend le texte du guide de haute montagne de "
    "l'article (17 mentions) et des documents générés, avec quatre systèmes simulés et les systèmes"
    " de référence (tout singleton, tout fusionné, profil aléatoire). La tâche de terminologie note"
    " quatre extracteurs simulés sur les listes françaises d'ACTER v1.5 (énergie éolienne, "
    "insuffisance cardiaque ; CC BY-NC-SA 4.0), la référence éolienne passant de la version 1.0 "
    "(reconstruite) à la version 1.1 entre deux exécutions."
)
NAME = ("Démo scorehouse : reconnaissance de la parole (WER, IER), étiquetage morphosyntaxique "
        "(GRACE), analyse syntaxique (EASY, CoNLL 2018), coréférence et terminologie")
ENGLISH = {
    NAME: ("scorehouse demo: speech recognition (WER, IER), part-of-speech tagging (GRACE), "
           "parsing (EASY, CoNLL 2018), coreference and terminology"),
    DESCRIPTION: (
        "A demonstration campaign (synthetic data) modelled on the voice service of the thesis, "
        "chapter 4: callers' short utterances, noise, false starts, out-of-vocabulary words and "
        "comments. Test_I holds the five utterances of the example of table 4.4. The tagging task "
        "takes half of the UD French GSD test set (CC BY-SA 4.0) with a positional pivot tagset and"
        " four published simulated taggers. The EASY task converts the GSD test set into EASY "
        "constituents and relations, split into four genres (a synthetic split), with five "
        "simulated parsers; the dependency task scores three simulated parsers with the CoNLL 2018 "
        "measures. The coreference task takes the mountain guide's text of the paper (17 mentions) "
        "and generated documents, with four simulated systems and the baseline systems (all "
        "singletons, all merged, random profile). The terminology task scores four simulated "
        "extractors on ACTER v1.5's French lists (wind energy, heart failure; CC BY-NC-SA 4.0), "
        "the wind energy reference moving from version 1.0 (rebuilt) to version 1.1 between two "
        "runs."),
    "Transcription 1-best": "1-best transcription",
    "Transcription d'appels horodatés (STM/CTM)": "Time-marked call transcription (STM/CTM)",
    "Étiquetage morphosyntaxique (démo GRACE sur UD French GSD)":
        "Part-of-speech tagging (GRACE demo on UD French GSD)",
    "Analyse syntaxique EASY (démo sur UD French GSD ; répartition en genres synthétique, GSD "
    "étant du texte web)":
        "EASY parsing (demo on UD French GSD; a synthetic split into genres, GSD being web text)",
    "Analyse en dépendances (CoNLL 2018, UD French GSD)":
        "Dependency parsing (CoNLL 2018, UD French GSD)",
    "Résolution de la référence (texte du topo-guide et textes générés)":
        "Reference resolution (the mountain guide's text and generated texts)",
    "Coréférence (CorefUD, CRAC)": "Coreference (CorefUD, CRAC)",
    "Extraction terminologique (ACTER, français : éolien, cardiologie)":
        "Terminology extraction (ACTER, French: wind energy, heart failure)",
}


def in_english(lines: list[str]) -> list[str]:
    """``campaign.toml``'s lines with the campaign's and the tasks' names and description that are
    among :data:`ENGLISH`'s, in English (in the ``[campaign]`` and ``[[tasks]]`` tables only: a
    participant or a system keeps its name); any other line as it is."""
    out, table = [], ""
    for line in lines:
        if line.startswith("["):
            table = line
        key, sep, value = line.partition(" = ")
        if (table in ("[campaign]", "[[tasks]]") and sep and key in ("name", "description")
                and value.startswith('"')):
            text = tomllib.loads(line)[key]
            line = f"{key} = {toml_value(ENGLISH[text])}" if text in ENGLISH else line
        out.append(line)
    return out
