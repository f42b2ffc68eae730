-- cat_participant: participants of a campaign with their publication flag.
-- Grain: campaign x participant. `code` is the stable anonymous code shown for anonymous ones.
CREATE TABLE IF NOT EXISTS cat_participant (
    campaign     VARCHAR NOT NULL,
    participant  VARCHAR NOT NULL,
    name         VARCHAR NOT NULL,
    publication  VARCHAR NOT NULL,       -- public | anonymous | withheld
    organiser    BOOLEAN NOT NULL,
    code         VARCHAR NOT NULL,
    PRIMARY KEY (campaign, participant)
);
