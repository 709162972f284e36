import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS_CLIENT, RedisSettings } from '@app/jobs';

/**
 * Finds the digital object of a project URL, or creates it with the next id of the persistent sequence, and
 * stores one assessment of it with the next assessment id: one script, so API processes sharing the Redis
 * never hand out an id twice nor give one URL two digital objects.
 */
const RECORD = `
local objectId = redis.call('HGET', KEYS[1], ARGV[1])
if not objectId then
  objectId = redis.call('INCR', KEYS[2])
  redis.call('HSET', KEYS[1], ARGV[1], objectId)
  redis.call('HSET', KEYS[3], objectId, ARGV[2])
end
local assessmentId = redis.call('INCR', KEYS[4])
local assessment = cjson.decode(ARGV[3])
assessment.id = assessmentId
assessment.digital_object_id = tonumber(objectId)
redis.call('HSET', KEYS[5], assessmentId, cjson.encode(assessment))
return {tonumber(objectId), assessmentId}`;

/** Where an assessment was also registered at FAIRshake. */
export interface FairshakeRegistration {
  url: string;
  digitalObjectId: number;
  assessmentId: number;
}

export interface NewAssessment {
  rubricId: number;
  /** normalised, so that spellings of one address share a digital object */
  projectUrl: string;
  projectTitle: string;
  /** metric id → answer */
  answers: Record<string, string>;
  fairshake: FairshakeRegistration | undefined;
}

/**
 * Assessments and their digital objects in Redis under REDIS_PREFIX (the embedded store of docs/behaviour.md#assessment). Like
 * FAIRshake, a digital object is identified by its URL: every assessment of the same project URL belongs to
 * the same digital object and answers its id, so a project's assessments can be compared over time.
 */
@Injectable()
export class AssessmentStore {
  private readonly keys: {
    objectIdsByUrl: string;
    objectSequence: string;
    objects: string;
    assessmentSequence: string;
    assessments: string;
    fairshakeObjectIds: string;
  };

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    redisSettings: RedisSettings,
  ) {
    const key = (name: string) => `${redisSettings.prefix}:assessment:${name}`;
    this.keys = {
      objectIdsByUrl: key('digital-object-ids'),
      objectSequence: key('digital-object-sequence'),
      objects: key('digital-objects'),
      assessmentSequence: key('sequence'),
      assessments: key('records'),
      fairshakeObjectIds: key('fairshake-digital-object-ids'),
    };
  }

  /** Stores the assessment; answers the ids of its digital object and of itself. */
  async record(assessment: NewAssessment): Promise<{ digitalObjectId: number; assessmentId: number }> {
    const createdAt = new Date().toISOString();
    const [digitalObjectId, assessmentId] = (await this.redis.eval(
      RECORD,
      5,
      this.keys.objectIdsByUrl,
      this.keys.objectSequence,
      this.keys.objects,
      this.keys.assessmentSequence,
      this.keys.assessments,
      assessment.projectUrl,
      JSON.stringify({ url: assessment.projectUrl, title: assessment.projectTitle, created_at: createdAt }),
      JSON.stringify({
        rubric_id: assessment.rubricId,
        project_url: assessment.projectUrl,
        project_title: assessment.projectTitle,
        answers: assessment.answers,
        fairshake: assessment.fairshake,
        created_at: createdAt,
      }),
    )) as [number, number];
    return { digitalObjectId, assessmentId };
  }

  /** The id FAIRshake (at `fairshakeUrl`) gave the digital object of this project URL, if it was registered. */
  async fairshakeDigitalObjectId(fairshakeUrl: string, projectUrl: string): Promise<number | undefined> {
    const id = await this.redis.hget(this.keys.fairshakeObjectIds, `${fairshakeUrl} ${projectUrl}`);
    return id === null ? undefined : Number(id);
  }

  /**
   * Remembers FAIRshake's id of a newly registered digital object. When two requests registered the same URL at
   * once, the first remembered id wins and is answered to both, so later assessments all go to one object.
   */
  async rememberFairshakeDigitalObjectId(
    fairshakeUrl: string,
    projectUrl: string,
    id: number,
  ): Promise<number> {
    const field = `${fairshakeUrl} ${projectUrl}`;
    const results = await this.redis
      .multi()
      .hsetnx(this.keys.fairshakeObjectIds, field, id)
      .hget(this.keys.fairshakeObjectIds, field)
      .exec();
    return Number(results?.[1]?.[1] ?? id);
  }
}
