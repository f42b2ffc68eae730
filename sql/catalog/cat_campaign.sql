-- cat_campaign: the campaigns this warehouse holds, as last read from campaign.toml.
-- Grain: campaign. cat_participant / cat_system carry the publication flags the bulletins obey.
CREATE TABLE IF NOT EXISTS cat_campaign (
    campaign     VARCHAR PRIMARY KEY,
    name         VARCHAR NOT NULL,
    description  VARCHAR,
    root         VARCHAR NOT NULL,       -- the campaign directory
    bootstrap    INTEGER NOT NULL,       -- resamples for confidence intervals
    seed         BIGINT NOT NULL,        -- the recorded bootstrap seed
    updated_run  INTEGER
);
