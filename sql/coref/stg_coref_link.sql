-- stg_coref_link: typed links between classes (part-of, instance-of, ...) of every accepted JSON
-- lines coreference file (key or submission), as read by etl/coref.py read_coref_links.
-- Grain: file content (sha256) x link.
CREATE TABLE IF NOT EXISTS stg_coref_link (
    sha256        VARCHAR NOT NULL,
    doc           VARCHAR NOT NULL,
    from_cluster  VARCHAR NOT NULL,
    to_cluster    VARCHAR NOT NULL,
    type          VARCHAR NOT NULL
);
