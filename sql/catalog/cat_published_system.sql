-- cat_published_system: the published set of every task, the one definition every public
-- artefact (pages, their tables, scorehouse export, public-db, Codabench files) reads: the
-- systems with a published label (cat_system.label: a public participant's system id, an
-- anonymous participant's code; NULL for a withheld participant), organisers' systems and
-- built-in baselines included (shown apart, ranked with the others: all are visible).
-- Ranks, paired tests and consensus in a public artefact are computed among these alone
-- (warehouse/published.py).
-- Grain: campaign x task x system.
CREATE OR REPLACE VIEW cat_published_system AS
SELECT s.campaign, s.task, s.system, s.participant, s.label, s.organiser, s.baseline
FROM cat_system s
LEFT JOIN cat_participant p ON p.campaign = s.campaign AND p.participant = s.participant
WHERE s.label IS NOT NULL AND coalesce(p.publication, 'public') <> 'withheld';
