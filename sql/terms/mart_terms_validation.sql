-- mart_terms_validation: the validation effort of each system's output: how many raw terms the
-- expert kept, modified or deleted, how many terms they added, and
-- effort = (modified + deleted + added) / raw terms. Grain: campaign x task x corpus x system.
CREATE TABLE IF NOT EXISTS mart_terms_validation (
    campaign         VARCHAR NOT NULL,
    task             VARCHAR NOT NULL,
    corpus           VARCHAR NOT NULL,
    system           VARCHAR NOT NULL,
    raw_terms        INTEGER NOT NULL,
    validated_terms  INTEGER NOT NULL,
    kept             INTEGER NOT NULL,
    modified         INTEGER NOT NULL,
    deleted          INTEGER NOT NULL,
    added            INTEGER NOT NULL,
    effort           DOUBLE NOT NULL
);
-- @build
INSERT INTO mart_terms_validation
WITH counts AS (
    SELECT campaign, task, corpus, system,
           count(*) FILTER (WHERE edit = 'kept') AS kept,
           count(*) FILTER (WHERE edit = 'modified') AS modified,
           count(*) FILTER (WHERE edit = 'deleted') AS deleted,
           count(*) FILTER (WHERE edit = 'added') AS added
    FROM int_terms_validation_edit
    WHERE campaign = $campaign AND task = $task AND corpus = $corpus AND system = $system
    GROUP BY campaign, task, corpus, system
)
SELECT campaign, task, corpus, system, kept + modified + deleted, kept + modified + added, kept,
       modified, deleted, added,
       CASE WHEN kept + modified + deleted > 0
            THEN (modified + deleted + added) / (kept + modified + deleted) ELSE 0 END
FROM counts;
