-- cat_system: the systems (runs, configurations) declared for each task.
-- Grain: campaign x task x system. `label` is what bulletins print (NULL when withheld).
CREATE TABLE IF NOT EXISTS cat_system (
    campaign     VARCHAR NOT NULL,
    task         VARCHAR NOT NULL,
    system       VARCHAR NOT NULL,
    participant  VARCHAR NOT NULL,
    label        VARCHAR,
    organiser    BOOLEAN NOT NULL,
    baseline     BOOLEAN NOT NULL DEFAULT false, -- built-in baseline of a family (e.g. POS Lexical)
    description  VARCHAR,
    options      JSON,
    PRIMARY KEY (campaign, task, system)
);
