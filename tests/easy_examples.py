"""EASY annotations shared by the tests (readers, scorer, pipeline).

``PAPER_XML``: the sentence the EASY paper (Paroubek et al., LREC 2006, section 4 and its figure 1)
annotates, "Il arrive en retard, avec, dans sa poche, un discours qu'il est obligé de garder", with
the constituents and relations its text names. Choices where the text leaves room:

* forms: the sentence split at spaces and apostrophes, punctuation separate (19 forms, E1F1..E1F19,
  ``qu'`` is E1F14);
* constituents (the text's examples, in sentence order): NV "Il arrive" (G1), GP "en retard" (G2),
  GP "dans sa poche" (G3), GN "un discours" (G4), NV "il est" (G5), GA "obligé" (G6), PV "de
  garder" (G7); "avec", "qu'" and the commas stand outside any group;
* relations, in the order the text gives them: SUJ-V il -> arrive between the two *forms* inside
  the NV (R1); COD-V qu' -> garder, two forms (R2); CPL-V "en retard" -> "Il arrive" (R3); CPL-V
  "avec, ..., un discours" -> "Il arrive" (R4): that constituent is discontinuous, so it is not
  annotated; the text says only the noun phrase "un discours" is, so R4's complement is the GN
  "un discours"; MOD-N "dans sa poche" -> "un discours" (R5); MOD-A "de garder" -> "obligé" (R6);
  MOD-N "il est" -> "un discours", the relative clause linked through its verb phrase (R7); the
  *complement* relation between the preposition "avec" and "un discours" is COMP, the EASY type
  whose first role (complementeur) holds the introducing word (R8). The MOD-N relations carry no
  a-propager flag (the text gives none). Figure 1 itself is not in the text we have: relations it
  may draw but the text does not name (e.g. SUJ-V il -> est, ATB-SO obligé -> est) are left out.

``ALL_TYPES_XML``: a hand-built two-sentence document using every group type, every relation type
and role set, both attributes (s-o, a-propager), an empty coord-g, forms with spaces, ``&``, ``<``,
``>`` and quotes, one sentence with a ``constituants`` wrapper and one without.
"""

PAPER_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<DOCUMENT xmlns:xlink="http://www.w3.org/1999/xlink">
  <E id="E1">
    <constituants>
      <Groupe type="NV" id="E1G1">
        <F id="E1F1">Il</F>
        <F id="E1F2">arrive</F>
      </Groupe>
      <Groupe type="GP" id="E1G2">
        <F id="E1F3">en</F>
        <F id="E1F4">retard</F>
      </Groupe>
      <F id="E1F5">,</F>
      <F id="E1F6">avec</F>
      <F id="E1F7">,</F>
      <Groupe type="GP" id="E1G3">
        <F id="E1F8">dans</F>
        <F id="E1F9">sa</F>
        <F id="E1F10">poche</F>
      </Groupe>
      <F id="E1F11">,</F>
      <Groupe type="GN" id="E1G4">
        <F id="E1F12">un</F>
        <F id="E1F13">discours</F>
      </Groupe>
      <F id="E1F14">qu'</F>
      <Groupe type="NV" id="E1G5">
        <F id="E1F15">il</F>
        <F id="E1F16">est</F>
      </Groupe>
      <Groupe type="GA" id="E1G6">
        <F id="E1F17">obligé</F>
      </Groupe>
      <Groupe type="PV" id="E1G7">
        <F id="E1F18">de</F>
        <F id="E1F19">garder</F>
      </Groupe>
    </constituants>
    <relations>
      <relation xlink:type="extended" type="SUJ-V" id="E1R1">
        <sujet xlink:type="locator" xlink:href="E1F1"/>
        <verbe xlink:type="locator" xlink:href="E1F2"/>
      </relation>
      <relation xlink:type="extended" type="COD-V" id="E1R2">
        <cod xlink:type="locator" xlink:href="E1F14"/>
        <verbe xlink:type="locator" xlink:href="E1F19"/>
      </relation>
      <relation xlink:type="extended" type="CPL-V" id="E1R3">
        <complement xlink:type="locator" xlink:href="E1G2"/>
        <verbe xlink:type="locator" xlink:href="E1G1"/>
      </relation>
      <relation xlink:type="extended" type="CPL-V" id="E1R4">
        <complement xlink:type="locator" xlink:href="E1G4"/>
        <verbe xlink:type="locator" xlink:href="E1G1"/>
      </relation>
      <relation xlink:type="extended" type="MOD-N" id="E1R5">
        <modifieur xlink:type="locator" xlink:href="E1G3"/>
        <nom xlink:type="locator" xlink:href="E1G4"/>
      </relation>
      <relation xlink:type="extended" type="MOD-A" id="E1R6">
        <modifieur xlink:type="locator" xlink:href="E1G7"/>
        <adjectif xlink:type="locator" xlink:href="E1G6"/>
      </relation>
      <relation xlink:type="extended" type="MOD-N" id="E1R7">
        <modifieur xlink:type="locator" xlink:href="E1G5"/>
        <nom xlink:type="locator" xlink:href="E1G4"/>
      </relation>
      <relation xlink:type="extended" type="COMP" id="E1R8">
        <complementeur xlink:type="locator" xlink:href="E1F6"/>
        <verbe xlink:type="locator" xlink:href="E1G4"/>
      </relation>
    </relations>
  </E>
</DOCUMENT>
"""

ALL_TYPES_XML = ("""\
<?xml version="1.0" encoding="UTF-8"?>
<DOCUMENT xmlns:xlink="http://www.w3.org/1999/xlink">
  <E id="E1">
    <constituants>
      <Groupe type="GN" id="E1G1"><F id="E1F1">Pierre</F></Groupe>
      <F id="E1F2">,</F>
      <Groupe type="GN" id="E1G2"><F id="E1F3">mon</F><F id="E1F4">ami</F></Groupe>
      <Groupe type="GA" id="E1G3"><F id="E1F5">fidèle</F></Groupe>
      <F id="E1F6">,</F>
      <Groupe type="NV" id="E1G4"><F id="E1F7">a</F><F id="E1F8">mangé</F></Groupe>
      <Groupe type="GR" id="E1G5"><F id="E1F9">très</F><F id="E1F10">vite</F></Groupe>
      <Groupe type="GN" id="E1G6"><F id="E1F11">une</F><F id="E1F12">pomme de terre</F></Groupe>
      <F id="E1F13">et</F>
      <Groupe type="GN" id="E1G7"><F id="E1F14">du</F><F id="E1F15">pain</F></Groupe>
      <F id="E1F16">.</F>
    </constituants>
    <relations>
      <relation xlink:type="extended" type="SUJ-V" id="E1R1">
        <sujet xlink:type="locator" xlink:href="E1G1"/>"""
     """<verbe xlink:type="locator" xlink:href="E1G4"/>
      </relation>
      <relation xlink:type="extended" type="APPOS" id="E1R2">
        <premier xlink:type="locator" xlink:href="E1G1"/>"""
     """<appose xlink:type="locator" xlink:href="E1G2"/>
      </relation>
      <relation xlink:type="extended" type="MOD-N" id="E1R3">
        <modifieur xlink:type="locator" xlink:href="E1G3"/>"""
     """<nom xlink:type="locator" xlink:href="E1G2"/>
        <a-propager booleen="vrai"/>
      </relation>
      <relation xlink:type="extended" type="AUX-V" id="E1R4">
        <auxiliaire xlink:type="locator" xlink:href="E1F7"/>"""
     """<verbe xlink:type="locator" xlink:href="E1F8"/>
      </relation>
      <relation xlink:type="extended" type="COD-V" id="E1R5">
        <cod xlink:type="locator" xlink:href="E1G6"/><verbe xlink:type="locator" xlink:href="E1G4"/>
      </relation>
      <relation xlink:type="extended" type="MOD-V" id="E1R6">
        <modifieur xlink:type="locator" xlink:href="E1G5"/>"""
     """<verbe xlink:type="locator" xlink:href="E1G4"/>
      </relation>
      <relation xlink:type="extended" type="MOD-R" id="E1R7">
        <modifieur xlink:type="locator" xlink:href="E1F9"/>"""
     """<adverbe xlink:type="locator" xlink:href="E1F10"/>
      </relation>
      <relation xlink:type="extended" type="COORD" id="E1R8">
        <coordonnant xlink:type="locator" xlink:href="E1F13"/>
        <coord-g xlink:type="locator" xlink:href="E1G6"/>
        <coord-d xlink:type="locator" xlink:href="E1G7"/>
      </relation>
    </relations>
  </E>
  <E id="E2">
    <F id="E2F1">Et</F>
    <Groupe type="GN" id="E2G1"><F id="E2F2">"A&amp;B &lt;C&gt;" l'a dit</F></Groupe>
    <Groupe type="NV" id="E2G2"><F id="E2F3">est</F></Groupe>
    <Groupe type="GA" id="E2G3"><F id="E2F4">sûr</F></Groupe>
    <F id="E2F5">que</F>
    <Groupe type="GN" id="E2G4"><F id="E2F6">Jean</F></Groupe>
    <Groupe type="NV" id="E2G5"><F id="E2F7">l'</F><F id="E2F8">aime</F></Groupe>
    <F id="E2F9">;</F>
    <Groupe type="NV" id="E2G6"><F id="E2F10">il</F><F id="E2F11">part</F></Groupe>
    <Groupe type="GP" id="E2G7"><F id="E2F12">à</F><F id="E2F13">Paris</F></Groupe>
    <F id="E2F14">juste</F>
    <F id="E2F15">après</F>
    <Groupe type="PV" id="E2G8"><F id="E2F16">pour</F><F id="E2F17">travailler</F></Groupe>
    <F id="E2F18">.</F>
    <relations>
      <relation xlink:type="extended" type="COORD" id="E2R1">
        <coordonnant xlink:type="locator" xlink:href="E2F1"/>
        <coord-g/>
        <coord-d xlink:type="locator" xlink:href="E2G2"/>
      </relation>
      <relation xlink:type="extended" type="SUJ-V" id="E2R2">
        <sujet xlink:type="locator" xlink:href="E2G1"/>"""
     """<verbe xlink:type="locator" xlink:href="E2G2"/>
      </relation>
      <relation xlink:type="extended" type="ATB-SO" id="E2R3">
        <attribut xlink:type="locator" xlink:href="E2G3"/>"""
     """<verbe xlink:type="locator" xlink:href="E2G2"/>
        <s-o valeur="sujet"/>
      </relation>
      <relation xlink:type="extended" type="COMP" id="E2R4">
        <complementeur xlink:type="locator" xlink:href="E2F5"/>"""
     """<verbe xlink:type="locator" xlink:href="E2G5"/>
      </relation>
      <relation xlink:type="extended" type="MOD-A" id="E2R5">
        <modifieur xlink:type="locator" xlink:href="E2G5"/>"""
     """<adjectif xlink:type="locator" xlink:href="E2G3"/>
      </relation>
      <relation xlink:type="extended" type="SUJ-V" id="E2R6">
        <sujet xlink:type="locator" xlink:href="E2G4"/>"""
     """<verbe xlink:type="locator" xlink:href="E2G5"/>
      </relation>
      <relation xlink:type="extended" type="COD-V" id="E2R7">
        <cod xlink:type="locator" xlink:href="E2F7"/><verbe xlink:type="locator" xlink:href="E2F8"/>
      </relation>
      <relation xlink:type="extended" type="JUXT" id="E2R8">
        <premier xlink:type="locator" xlink:href="E2G2"/>"""
     """<suivant xlink:type="locator" xlink:href="E2G6"/>
      </relation>
      <relation xlink:type="extended" type="CPL-V" id="E2R9">
        <complement xlink:type="locator" xlink:href="E2G7"/>"""
     """<verbe xlink:type="locator" xlink:href="E2G6"/>
      </relation>
      <relation xlink:type="extended" type="MOD-P" id="E2R10">
        <modifieur xlink:type="locator" xlink:href="E2F14"/>"""
     """<preposition xlink:type="locator" xlink:href="E2F15"/>
      </relation>
      <relation xlink:type="extended" type="MOD-V" id="E2R11">
        <modifieur xlink:type="locator" xlink:href="E2G8"/>"""
     """<verbe xlink:type="locator" xlink:href="E2G6"/>
      </relation>
    </relations>
  </E>
</DOCUMENT>
""")
